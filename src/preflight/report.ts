/** Turning pods' facts into a report (pure): members named, findings, text and the JSON object. */
import { type Finding, summarize } from "../core/finding.js";
import { renderFindingSections, summaryLine } from "../report/findings-text.js";
import { comparePods } from "./compare.js";
import { factsViolations } from "./schema.js";
import type { Member, PodFacts } from "./types.js";

export const PREFLIGHT_SCHEMA_VERSION = 1;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why a JSON value is not a pod's facts: one sentence when it is some other document (no facts kind, another
 * version), else each violation of docs/preflight-facts.schema.json with its JSON path; empty when it is facts.
 */
export function factsProblems(data: unknown): string[] {
  if (!isRecord(data)) return ["not a JSON object"];
  if (data.kind !== "kube-rdma/preflight-facts")
    return ['not pod facts (expected "kind": "kube-rdma/preflight-facts")'];
  if (data.schemaVersion !== 1)
    return [`schemaVersion ${String(data.schemaVersion)} is not supported (this kube-rdma reads 1)`];
  return factsViolations(data).map((v) => `${v.path}: ${v.message}`);
}

/** The first of factsProblems, or null when the value is a pod's facts. */
export function factsDefect(data: unknown): string | null {
  return factsProblems(data)[0] ?? null;
}

/** Names each pod by its pod name; where two inputs share one (facts of one host), by their labels (file names). */
export function membersOf(inputs: readonly { label: string; facts: PodFacts }[]): Member[] {
  const count = new Map<string, number>();
  for (const i of inputs) count.set(i.facts.pod, (count.get(i.facts.pod) ?? 0) + 1);
  return inputs.map((i) => ({ name: count.get(i.facts.pod) === 1 ? i.facts.pod : i.label, facts: i.facts }));
}

export type PreflightReport = {
  schemaVersion: number;
  pods: string[];
  findings: Finding[];
  summary: ReturnType<typeof summarize>;
};

export function preflightReport(members: readonly Member[], extra: readonly Finding[] = [], strict = false) {
  const findings = [...extra, ...comparePods(members)];
  return {
    schemaVersion: PREFLIGHT_SCHEMA_VERSION,
    pods: members.map((m) => m.name),
    findings,
    summary: summarize(findings, strict),
  } satisfies PreflightReport;
}

export function renderPreflightText(r: PreflightReport, title: string): string {
  const s = r.summary;
  const head = `${title}: ${r.pods.length} pod${r.pods.length === 1 ? "" : "s"} compared`;
  const scope = `${r.pods.length} pod(s) compared`;
  const tail =
    r.findings.length === 0
      ? summaryLine(s, `${scope}: the pods agree (same HCAs, GID indices, NCCL library, plugins and NCCL variables)`)
      : summaryLine(s, scope);
  return `${[head, ...renderFindingSections(r.findings), "", tail].join("\n")}\n`;
}

/** One pod's facts in a few lines (`preflight --facts-only` text output). */
export function renderFactsText(f: PodFacts): string {
  const uverbs = f.hcas
    .filter((h) => h.role === "data")
    .map((h) => `${h.name}:${h.uverbs.map((u) => u.open).join("/") || "absent"}`)
    .join(" ");
  const gid = f.hcas
    .filter((h) => f.dataHcas.includes(h.name))
    .map((h) => `${h.name}=${h.roceV2Ipv4Index ?? h.roceV2Ipv6Index ?? "none"}`)
    .join(" ");
  const lib = f.nccl.library;
  const lines = [
    `kube-rdma preflight facts: pod ${f.pod} on ${f.hostname} (${f.source})`,
    `  data HCAs   ${f.dataHcas.join(", ") || "none"}`,
    `  open        ${uverbs || "no data HCA"}`,
    `  GID index   ${gid || "none"}`,
    `  GPUs        ${f.gpus.count} (NVIDIA_VISIBLE_DEVICES=${f.gpus.visibleDevices ?? "unset"}), GPUDirect ${f.gpuDirect ?? "none"}`,
    `  memlock     ${String(f.memlock.soft)}, IPC_LOCK ${f.ipcLock === null ? "unknown" : f.ipcLock ? "yes" : "no"}, /dev/shm ${f.shmBytes ?? "unknown"} bytes`,
    `  NCCL        ${lib ? `${lib.path} ${lib.version ?? "(version unknown)"}` : "no libnccl found"}`,
    `  net plugin  ${f.nccl.netPlugins.map((p) => p.path).join(", ") || "none"}`,
    `  NCCL env    ${
      Object.entries(f.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ") || "none"
    }`,
    ...f.problems.map((p) => `  problem     ${p}`),
  ];
  return `${lines.join("\n")}\n`;
}
