/**
 * Values read the way their consumer reads them: a quantity the API server cannot parse (`sizeLimit: lots`) is
 * refused at apply time, and two volumes of one name are refused too (a pod's volume names are unique:
 * https://kubernetes.io/docs/concepts/storage/volumes/ and the validation of `spec.volumes[*].name` in
 * kubernetes/kubernetes pkg/apis/core/validation). Quantities follow k8s.io/apimachinery's grammar (resources.ts).
 */
import { makeFinding } from "../../core/finding.js";
import { parseQuantity } from "../resources.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import type { LocatedFinding } from "./rules.js";
import { isObj, type Json, type Path, type PodTemplateRef, pathString, type WorkloadObject } from "./templates.js";

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Json => (isObj(v) ? v : {});

function located(
  w: WorkloadObject,
  container: string | null,
  field: Path,
  make: (where: string) => LocatedFinding["finding"],
) {
  const where = `${w.kind}/${w.name}${container ? ` container ${container}` : ""}`;
  return { finding: make(where), location: { container, field } };
}

function badQuantity(w: WorkloadObject, container: string | null, field: Path, value: unknown): LocatedFinding {
  const shown = JSON.stringify(value) ?? String(value);
  return located(w, container, field, (where) =>
    makeFinding(L, "BAD_QUANTITY", where, { where, field: pathString(field), value: shown }),
  );
}

/** Every resource quantity of every container and init container, and every emptyDir sizeLimit. */
function quantityRules(w: WorkloadObject, t: PodTemplateRef): LocatedFinding[] {
  const out: LocatedFinding[] = [];
  for (const list of ["containers", "initContainers"] as const) {
    arr(t.spec[list]).forEach((raw, index) => {
      const c = obj(raw);
      const name = String(c.name ?? `#${index}`);
      for (const kind of ["limits", "requests"] as const) {
        for (const [res, v] of Object.entries(obj(obj(c.resources)[kind]))) {
          if (parseQuantity(v as string | number) !== null) continue;
          out.push(badQuantity(w, name, [...t.specPath, list, index, "resources", kind, res], v));
        }
      }
    });
  }
  arr(t.spec.volumes).forEach((raw, index) => {
    const ed = obj(raw).emptyDir;
    if (!isObj(ed) || ed.sizeLimit === undefined || ed.sizeLimit === null) return;
    if (parseQuantity(ed.sizeLimit as string | number) !== null) return;
    out.push(badQuantity(w, null, [...t.specPath, "volumes", index, "emptyDir", "sizeLimit"], ed.sizeLimit));
  });
  return out;
}

/** Volume names used twice in one pod spec: the API server refuses the pod; a mount's volume is ambiguous. */
function duplicateVolumeRules(w: WorkloadObject, t: PodTemplateRef): LocatedFinding[] {
  const first = new Map<string, number>();
  const out: LocatedFinding[] = [];
  arr(t.spec.volumes).forEach((raw, index) => {
    const name = obj(raw).name;
    if (typeof name !== "string") return;
    const seen = first.get(name);
    if (seen === undefined) {
      first.set(name, index);
      return;
    }
    const field = [...t.specPath, "volumes", index, "name"];
    out.push(
      located(w, null, field, (where) =>
        makeFinding(L, "DUPLICATE_VOLUME_NAME", where, {
          where,
          volume: name,
          field: pathString(field),
          first: pathString([...t.specPath, "volumes", seen]),
        }),
      ),
    );
  });
  return out;
}

export function valueRules(w: WorkloadObject): LocatedFinding[] {
  return w.templates.flatMap((t) => [...quantityRules(w, t), ...duplicateVolumeRules(w, t)]);
}
