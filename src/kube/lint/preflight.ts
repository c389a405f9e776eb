/**
 * What `lint` knows of the gang preflight that `kube-rdma job --preflight` adds: the init container must wait for
 * as many pods as the job has GPU pods, see the same devices as training, and run under an identity that may use
 * the job's ConfigMap; the ServiceAccount, Role, RoleBinding and ConfigMap beside the job are known, not "unknown
 * kinds". Pure.
 */
import { makeFinding } from "../../core/finding.js";
import { isGpuResource, isRdmaResource } from "../resources.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import type { LocatedFinding } from "./rules.js";
import { isObj, type Json, type WorkloadObject } from "./templates.js";

const PREFLIGHT_CONTAINER = "kube-rdma-preflight";
const SUPPORT_KINDS = new Set(["ServiceAccount", "Role", "RoleBinding", "ConfigMap"]);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Json => (isObj(v) ? v : {});

/** A ServiceAccount, Role, RoleBinding or ConfigMap labelled as kube-rdma's preflight (`job --preflight` writes them). */
export function isPreflightSupportObject(value: unknown): boolean {
  if (!isObj(value) || !SUPPORT_KINDS.has(String(value.kind))) return false;
  const labels = obj(obj(value.metadata).labels);
  return labels["app.kubernetes.io/name"] === "kube-rdma" && labels["app.kubernetes.io/component"] === "preflight";
}

/** `kube-rdma preflight` run as a container: by name, or by its command line. */
function isPreflight(c: Json): boolean {
  const words = [...arr(c.command), ...arr(c.args)].map(String);
  return c.name === PREFLIGHT_CONTAINER || (words.some((w) => /kube-rdma$/.test(w)) && words.includes("preflight"));
}

/** The GPU and RDMA requests of a container, as `name=value` sorted (what the device plugins hand out). */
function devices(c: Json): string {
  const r = obj(c.resources);
  const all = { ...obj(r.requests), ...obj(r.limits) };
  return Object.keys(all)
    .filter((k) => isGpuResource(k) || isRdmaResource(k))
    .sort()
    .map((k) => `${k}=${String(all[k])}`)
    .join(", ");
}

function membersArg(c: Json): number | null {
  const args = [...arr(c.command), ...arr(c.args)].map(String);
  const i = args.indexOf("--members");
  const v = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith("--members="))?.slice(10);
  const n = v === undefined ? Number.NaN : Number(v);
  return Number.isInteger(n) ? n : null;
}

/** The preflight rules over one workload with `gpuPods` GPU pods. */
export function preflightRules(w: WorkloadObject, gpuPods: number): LocatedFinding[] {
  const out: LocatedFinding[] = [];
  for (const t of w.templates) {
    arr(t.spec.initContainers).forEach((raw, index) => {
      const c = obj(raw);
      if (!isPreflight(c)) return;
      const name = String(c.name ?? `#${index}`);
      const path = [...t.specPath, "initContainers", index];
      const where = `${w.kind}/${w.name} init container ${name}`;
      const location = (field: (string | number)[]) => ({ container: name, field: [...path, ...field] });
      const members = membersArg(c);
      if (members !== gpuPods) {
        out.push({
          finding: makeFinding(L, "PREFLIGHT_MEMBERS_MISMATCH", where, {
            where,
            members: members === null ? "not given" : String(members),
            gpuPods,
          }),
          location: location(["args"]),
        });
      }
      const training = arr(t.spec.containers)
        .map(obj)
        .find((x) => devices(x) !== "");
      if (training && devices(training) !== devices(c)) {
        out.push({
          finding: makeFinding(L, "PREFLIGHT_DEVICES_DIFFER", where, {
            where,
            preflight: devices(c) || "none",
            training: devices(training),
          }),
          location: location(["resources"]),
        });
      }
      if (typeof t.spec.serviceAccountName !== "string" || t.spec.serviceAccountName === "") {
        out.push({
          finding: makeFinding(L, "PREFLIGHT_NO_SERVICE_ACCOUNT", where, { where }),
          location: { container: null, field: [...t.specPath] },
        });
      }
    });
  }
  return out;
}
