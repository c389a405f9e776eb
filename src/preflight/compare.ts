/**
 * Compares the facts of a gang's pods with each other (pure). Every pod could pass on its own and the job still
 * hang: different HCA sets, an HCA a pod cannot open, GID tables that differ, NCCL or its plugin differing between
 * images, GPUDirect on some pods only, rails on different subnets.
 */
import { compactNames } from "../checks/select.js";
import { bySeverity, type Finding, makeFinding } from "../core/finding.js";
import { naturalCompare, naturallySorted } from "../core/natural.js";
import { atLeast, parseNcclVersion } from "../nccl/version.js";
import { coveringCidr } from "../parse/ipv4.js";
import { type Differs, PREFLIGHT_FINDINGS } from "./catalogue.js";
import type { Member, PodFacts, PodHca } from "./types.js";

const UNSET = "(unset)";

/** Pods by value, the value most pods share first (ties: the value's natural order). */
export function groupValues(members: readonly Member[], keyOf: (f: PodFacts) => string): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const m of members) {
    const v = keyOf(m.facts);
    const pods = groups.get(v) ?? [];
    pods.push(m.name);
    groups.set(v, pods);
  }
  return [...groups].sort(([a, pa], [b, pb]) => pb.length - pa.length || naturalCompare(a, b));
}

/** `3 on 15 pods, 5 on worker-7`: each value with its pods (named when few). */
export function describeSides(groups: readonly [string, string[]][]): string {
  return groups.map(([v, pods]) => `${v} on ${pods.length > 3 ? `${pods.length} pods` : pods.join(", ")}`).join(", ");
}

/** A Differs when the pods disagree; the odd pods are everyone outside the largest group (all sides on a tie). */
export function differsOf(
  attribute: string,
  members: readonly Member[],
  keyOf: (f: PodFacts) => string,
): Differs | null {
  const groups = groupValues(members, keyOf);
  if (groups.length <= 1) return null;
  const tie = groups[0]![1].length === groups[1]![1].length;
  const odd = groups.slice(tie ? 0 : 1).flatMap(([, pods]) => pods);
  return { attribute, sides: describeSides(groups), odd, values: Object.fromEntries(groups) };
}

const subjectOf = (d: Differs) => (d.odd.length <= 3 ? d.odd.join(", ") : `${d.odd.length} pods`);
const where = (pods: readonly string[], total: number) =>
  pods.length === total && total > 3 ? `every pod (${total})` : `pod ${pods.join(", pod ")}`;

/** The data HCA set in words; pods with the same list share one rendering (a gang's pods mostly agree). */
function hcaSetOf(): (f: PodFacts) => string {
  const seen = new Map<string, string>();
  return (f) => {
    if (f.dataHcas.length === 0) return "no data HCA";
    const key = f.dataHcas.join("\n");
    let text = seen.get(key);
    if (text === undefined) {
      text = compactNames(f.dataHcas);
      seen.set(key, text);
    }
    return text;
  };
}

/** Every pod's data HCAs, each name once, in natural order. */
const dataHcaNames = (members: readonly Member[]) =>
  naturallySorted([...new Set(members.flatMap((m) => m.facts.dataHcas))]);
/** Each pod's HCAs by name and its data HCAs as a set, built once per facts object: lookups stay O(1). */
type FactsIndex = { byName: Map<string, PodHca>; data: Set<string> };
const indexes = new WeakMap<PodFacts, FactsIndex>();

function indexOf(f: PodFacts): FactsIndex {
  let ix = indexes.get(f);
  if (!ix) {
    const byName = new Map<string, PodHca>();
    // The first entry of a name wins, as a linear find would.
    for (const h of f.hcas) if (!byName.has(h.name)) byName.set(h.name, h);
    ix = { byName, data: new Set(f.dataHcas) };
    indexes.set(f, ix);
  }
  return ix;
}

const hca = (f: PodFacts, name: string) => indexOf(f).byName.get(name);
const hasDataHca = (f: PodFacts, name: string) => indexOf(f).data.has(name);
const libText = (l: { version: string | null; path: string } | null) =>
  l ? (l.version ? `NCCL ${l.version}` : `${l.path} (version unknown)`) : "no libnccl";
const pluginsText = (f: PodFacts) =>
  f.nccl.netPlugins.length
    ? f.nccl.netPlugins
        .map((p) => `${p.path.slice(p.path.lastIndexOf("/") + 1)}${p.version ? ` ${p.version}` : ""}`)
        .join(" + ")
    : "no net plugin";

/**
 * A gang in which no pod has a data HCA agrees with itself — on TCP. (When only some pods lack one, the HCA sets
 * differ and PREFLIGHT_HCA_SET_DIFFERS names them.) Pods that disable NCCL's IB transport on purpose are left out.
 */
function noDataHcaFindings(members: readonly Member[]): Finding[] {
  const rdma = members.filter((m) => m.facts.env.NCCL_IB_DISABLE !== "1");
  if (rdma.length === 0 || rdma.some((m) => m.facts.dataHcas.length > 0)) return [];
  const seenBy = groupValues(rdma, (f) =>
    f.hcas.length === 0
      ? "no device in /sys/class/infiniband"
      : `${compactNames(f.hcas.map((h) => h.name))} listed, none a data HCA with its uverbs device in the pod`,
  );
  return seenBy.map(([seen, pods]) =>
    makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_NO_DATA_HCA", pods.join(", "), {
      where: where(pods, members.length),
      seen,
    }),
  );
}

function uverbsFindings(members: readonly Member[]): Finding[] {
  const byDevice = new Map<string, { hca: string; device: string; error: string; pods: string[] }>();
  for (const m of members) {
    for (const h of m.facts.hcas) {
      if (h.role !== "data") continue;
      for (const u of h.uverbs) {
        if (u.open === "ok" || u.open === "not-tried") continue;
        const key = `${h.name} ${u.device} ${u.open}`;
        const e = byDevice.get(key) ?? { hca: h.name, device: u.device, error: u.open, pods: [] };
        e.pods.push(m.name);
        byDevice.set(key, e);
      }
    }
  }
  return [...byDevice.values()].map((e) =>
    makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_UVERBS_UNOPENABLE", `${e.pods.join(", ")}: ${e.hca}`, {
      ...e,
      where: where(e.pods, members.length),
    }),
  );
}

function gidFindings(members: readonly Member[], names: readonly string[]): Finding[] {
  const out: Finding[] = [];
  const fixed = members.map((m) => m.facts.env.NCCL_IB_GID_INDEX).find((v) => v !== undefined) ?? null;
  const oldNccl = members.some((m) => {
    const v = m.facts.nccl.library?.version ? parseNcclVersion(m.facts.nccl.library.version) : null;
    return !v || !atLeast(v, 2, 21);
  });
  const ipv4 = members.flatMap((m) =>
    m.facts.hcas.filter((h) => h.role === "data" && h.roceV2Ipv4Index !== null).map((h) => h.address ?? ""),
  );
  const family = ipv4.length > 0 ? "AF_INET" : "AF_INET6";
  const cidr = ipv4.length > 0 ? coveringCidr(ipv4) : null;
  for (const name of names) {
    const present = members.filter((m) => hasDataHca(m.facts, name));
    const d = differsOf(`${name} RoCE v2 GID index`, present, (f) => {
      const h = hca(f, name);
      const i = h?.roceV2Ipv4Index ?? h?.roceV2Ipv6Index ?? null;
      return i === null ? "none" : String(i);
    });
    if (!d) continue;
    // With NCCL ≥ 2.21 and no fixed index every pod finds its own GID: the difference is worth a warning only.
    const severity = fixed !== null || oldNccl ? "error" : "warning";
    out.push(
      makeFinding(
        PREFLIGHT_FINDINGS,
        "PREFLIGHT_GID_INDEX_DIFFERS",
        `${subjectOf(d)}: ${name}`,
        { ...d, fixedIndex: fixed, cidr, family },
        severity,
      ),
    );
  }
  return out;
}

function differsFinding(
  code: "PREFLIGHT_HCA_SET_DIFFERS" | "PREFLIGHT_NCCL_VERSION_DIFFERS" | "PREFLIGHT_NET_PLUGIN_DIFFERS",
  attribute: string,
  members: readonly Member[],
  keyOf: (f: PodFacts) => string,
): Finding[] {
  const d = differsOf(attribute, members, keyOf);
  return d ? [makeFinding(PREFLIGHT_FINDINGS, code, subjectOf(d), d)] : [];
}

function envFindings(members: readonly Member[]): Finding[] {
  const names = [...new Set(members.flatMap((m) => Object.keys(m.facts.env)))].sort();
  return names.flatMap((name) => {
    const d = differsOf(name, members, (f) => f.env[name] ?? UNSET);
    return d ? [makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_NCCL_ENV_DIFFERS", `${subjectOf(d)}: ${name}`, d)] : [];
  });
}

function subnetFindings(members: readonly Member[], names: readonly string[]): Finding[] {
  return names.flatMap((name) => {
    const present = members.filter((m) => hca(m.facts, name)?.subnet);
    const d = differsOf(`${name} subnet`, present, (f) => hca(f, name)?.subnet ?? "none");
    return d ? [makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_SUBNET_DIFFERS", `${subjectOf(d)}: ${name}`, d)] : [];
  });
}

function pinFindings(members: readonly Member[]): Finding[] {
  const limited = members.filter((m) => m.facts.memlock.soft !== "unlimited" && m.facts.ipcLock === false);
  if (!limited.length) return [];
  const groups = groupValues(limited, (f) =>
    typeof f.memlock.soft === "number" ? `${f.memlock.soft} bytes` : "unknown",
  );
  return groups.map(([soft, pods]) =>
    makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_CANNOT_PIN", pods.join(", "), {
      where: where(pods, members.length),
      soft,
    }),
  );
}

/** Every difference between the pods, and what any pod cannot do; errors first. */
export function comparePods(members: readonly Member[]): Finding[] {
  const names = dataHcaNames(members);
  const findings: Finding[] = [
    ...noDataHcaFindings(members),
    ...uverbsFindings(members),
    ...differsFinding("PREFLIGHT_HCA_SET_DIFFERS", "data HCAs", members, hcaSetOf()),
    ...gidFindings(members, names),
    ...differsFinding("PREFLIGHT_NCCL_VERSION_DIFFERS", "NCCL library", members, (f) => libText(f.nccl.library)),
    ...differsFinding("PREFLIGHT_NET_PLUGIN_DIFFERS", "NCCL net plugin", members, pluginsText),
    ...envFindings(members),
    ...pinFindings(members),
    ...subnetFindings(members, names),
  ];
  const gpus = differsOf("GPUs", members, (f) => String(f.gpus.count));
  if (gpus) findings.push(makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_GPU_COUNT_DIFFERS", subjectOf(gpus), gpus));
  const gdr = differsOf("GPUDirect RDMA", members, (f) => f.gpuDirect ?? "none");
  if (gdr) findings.push(makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_GPUDIRECT_DIFFERS", subjectOf(gdr), gdr));
  return findings.sort(bySeverity);
}
