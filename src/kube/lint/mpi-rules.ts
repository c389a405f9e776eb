/**
 * Ranks started by mpirun over ssh (MPIJob v2, Volcano's ssh plugin) get only what mpirun forwards (`-x NAME` from
 * the launcher's env, `-x NAME=value`) and what their own command sets. The RDMA device plugin injects the NCCL
 * variables into the pods holding rdma/hca — the workers, whose sshd does not pass its env to ssh sessions.
 */
import { makeFinding } from "../../core/finding.js";
import { isRdmaResource } from "../resources.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import type { LocatedFinding } from "./rules.js";
import { isObj, type Json, type Path, type PodTemplateRef, type WorkloadObject } from "./templates.js";

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Json => (isObj(v) ? v : {});

/** The variable whose absence means the ranks run without the platform's NCCL selection. */
const KEY_VARIABLE = "NCCL_IB_HCA";

type Launch = { text: string; field: Path; containerName: string; env: Set<string>; rdma: boolean };

function requestsRdma(c: Json): boolean {
  const r = obj(c.resources);
  return Object.keys({ ...obj(r.requests), ...obj(r.limits) }).some(isRdmaResource);
}

/** The mpirun command line of a container (argv, or inside a `sh -c` script), from `mpirun` on. */
function mpirunText(c: Json): { text: string; field: "command" | "args" } | null {
  const command = arr(c.command).map(String);
  const words = [...command, ...arr(c.args).map(String)];
  const at = words.findIndex((w) => /(?:^|\/)mpirun$/.test(w) || /(?:^|[\s;&|(])mpirun\s/.test(w));
  if (at < 0) return null;
  const field = at < command.length ? "command" : "args";
  const word = words[at]!;
  const text = /\s/.test(word) ? word.slice(word.search(/mpirun\s/)) : words.slice(at).join(" ");
  return { text, field };
}

function launchOf(t: PodTemplateRef): Launch | null {
  const containers = arr(t.spec.containers).map(obj);
  for (const [i, c] of containers.entries()) {
    const m = mpirunText(c);
    if (!m) continue;
    const env = new Set(
      arr(c.env)
        .map(obj)
        .filter((e) => typeof e.name === "string" && (e.value !== undefined || e.valueFrom !== undefined))
        .map((e) => e.name as string),
    );
    return {
      text: m.text,
      field: [...t.specPath, "containers", i, m.field],
      containerName: String(c.name ?? `#${i}`),
      env,
      rdma: requestsRdma(c),
    };
  }
  return null;
}

/** Whether the ranks of this mpirun line get the variable: forwarded with a value or from the launcher, or sourced. */
export function ranksGet(launch: Omit<Launch, "field" | "containerName">, name: string): boolean {
  const sourced = /(?:^|[\s;&|'"])(?:\.|source)\s+\S/.test(launch.text);
  if (sourced) return true;
  for (const m of launch.text.matchAll(/(?:^|\s)-x\s+([A-Za-z_][A-Za-z0-9_]*)(=?)/g)) {
    if (m[1] !== name) continue;
    if (m[2] === "=" || launch.env.has(name) || launch.rdma) return true;
  }
  return false;
}

/** MPIJob / Volcano Job: a launcher whose ranks start on RDMA workers without NCCL_IB_HCA. */
export function mpiRankEnvRules(w: WorkloadObject): LocatedFinding[] {
  const mpiKind = w.kind === "MPIJob" || (w.kind === "Job" && w.apiVersion.startsWith("batch.volcano.sh/"));
  if (!mpiKind) return [];
  const out: LocatedFinding[] = [];
  for (const t of w.templates) {
    const launch = launchOf(t);
    if (!launch) continue;
    const rdmaWorkers = w.templates.some((o) => o !== t && arr(o.spec.containers).some((c) => requestsRdma(obj(c))));
    if (!rdmaWorkers || ranksGet(launch, KEY_VARIABLE)) continue;
    const where = `${w.kind}/${w.name} container ${launch.containerName}`;
    out.push({
      finding: makeFinding(L, "MPI_RANKS_WITHOUT_NCCL_ENV", where, { where, variable: KEY_VARIABLE }),
      location: { container: launch.containerName, field: launch.field },
    });
  }
  return out;
}
