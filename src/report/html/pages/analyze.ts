/**
 * The `analyze -o html` page: every nccl-tests run on one bus-bandwidth chart with the expected band, then one
 * section per input with its findings and a picture of its kind (GID table, GPU↔NIC distances, NCCL log facts).
 */
import type { AnalyzedInput } from "../../../analyze/index.js";
import { fallbackSummary, notRead, readInPart, unreadScope } from "../../../analyze/render.js";
import { failIfUnchecked, summarize } from "../../../core/finding.js";
import type { NcclLogData } from "../../../nccl/log/report.js";
import { VERDICT_TEXT } from "../../../nccl/log/report.js";
import type { NcclTestsData } from "../../../nccl/perf-results/analyzer.js";
import type { RunSummary } from "../../../nccl/perf-results/judge.js";
import type { PerfRow } from "../../../nccl/perf-results/types.js";
import type { NvidiaSmiTopo } from "../../../parse/nvidia-smi-topo.js";
import type { ShowGids } from "../../../parse/show-gids.js";
import { type BusBwSeries, busBwChart } from "../charts/busbw.js";
import { facts, findingsList, problemsList, statusOf, table } from "../components.js";
import { bytesText, count, gbpsText } from "../format.js";
import { type Html, h } from "../html.js";
import { type GidPort, gidTable, topologyChart } from "../node-parts.js";
import { page } from "../page.js";

const bestBus = (r: PerfRow): number => Math.max(r.outOfPlace?.busbw ?? 0, r.inPlace?.busbw ?? 0);

type Run = { name: string; run: RunSummary };

/** Every nccl-tests run of every input, named by its file (and its number when a file holds several). */
function runsOf(entries: readonly AnalyzedInput[]): Run[] {
  return entries.flatMap((e) => {
    if (e.kind !== "nccl_tests" || !e.data) return [];
    const runs = (e.data as NcclTestsData).runs;
    return runs.map((run, i) => ({ name: runs.length > 1 ? `${e.file} (run ${i + 1})` : e.file, run }));
  });
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function busBwSection(runs: readonly Run[]): Html {
  const series: BusBwSeries[] = runs.map(({ name, run }) => ({
    name,
    points: run.rows.map((r) => ({ bytes: r.bytes, busbw: bestBus(r) })),
  }));
  const expectation = runs.find((r) => r.run.expectation)?.run.expectation ?? null;
  const large = runs.map((r) => r.run.largeMessage?.busbw).filter((v): v is number => v !== undefined);
  const mid = runs.length >= 2 ? median(large) : null;
  return h`<h2>Bus bandwidth against message size</h2>
<p class="sub">The better of out-of-place and in-place at each size.${expectation ? "" : " No expected figure: pass --expect GBps, or --example/--snapshot with the node's NICs."}</p>
${busBwChart({
  series,
  expected: expectation
    ? { GBps: expectation.GBps, lowGBps: expectation.problemBelowGBps, source: expectation.source }
    : null,
  medianGBps: mid,
})}
${table({
  columns: [
    "run",
    "collective",
    { label: "ranks", num: true },
    "hosts",
    { label: "peak bus bandwidth", num: true },
    { label: "large messages", num: true },
    { label: "expected", num: true },
  ],
  rows: runs.map(({ name, run }) => ({
    cells: [
      name,
      run.collective ?? "unknown",
      run.nranks ?? "",
      run.hosts.join(", "),
      { html: run.peak ? `${gbpsText(run.peak.busbw)} at ${bytesText(run.peak.bytes)}` : "", num: true },
      { html: run.largeMessage ? gbpsText(run.largeMessage.busbw) : "", num: true },
      { html: run.expectation ? gbpsText(run.expectation.GBps) : "", num: true },
    ],
  })),
})}`;
}

/** show_gids rows per device/port; the index NCCL uses is the lowest RoCE v2 GID with an IPv4 address. */
function showGidsPorts(data: ShowGids): GidPort[] {
  const ports = new Map<string, GidPort>();
  for (const r of data.gids) {
    const key = `${r.device}\u0000${r.port}`;
    const p = ports.get(key) ?? { device: r.device, port: r.port, rows: [], chosen: null, odd: false };
    (p.rows as (typeof r)[]).push(r);
    if (r.version === "v2" && r.ipv4 !== null && (p.chosen === null || r.index < p.chosen)) p.chosen = r.index;
    ports.set(key, p);
  }
  const list = [...ports.values()];
  const withIndex = list.filter((p) => p.chosen !== null);
  const counts = new Map<number, number>();
  for (const p of withIndex) counts.set(p.chosen!, (counts.get(p.chosen!) ?? 0) + 1);
  const usual = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null;
  for (const p of list) p.odd = withIndex.length > 0 && p.chosen !== usual;
  return list;
}

function topoPicture(data: NvidiaSmiTopo): Html {
  const gpus = data.devices.filter((d) => /^GPU\d+$/.test(d));
  const nics = data.devices.filter((d) => !/^GPU\d+$/.test(d));
  return topologyChart({ gpus, nics, distance: (g, n) => data.matrix[g]?.[n] });
}

function logFacts(d: NcclLogData): Html {
  const c = d.connections;
  return h`${facts([
    ["NCCL", d.ncclVersions.join(", ") || "unknown"],
    ["ranks", `${d.ranks} on ${count(d.nNodes, "node")}`],
    ["network", d.network ?? "unknown"],
    ["verdict", `${d.verdict}: ${VERDICT_TEXT[d.verdict]}`],
    [
      "connections",
      `${c.net} over the network (${c.netGdr} with GPUDirect RDMA), ${c.p2p} P2P, ${c.shm} shared memory, ${c.socket} socket`,
    ],
    ["devices", d.devices.map((x) => `${x.name}:${x.port} (${x.linkLayer})`).join(", ") || "none listed"],
  ])}${
    d.warnings.length
      ? table({
          columns: ["warning", { label: "lines", num: true }, "cause", "fix"],
          rows: d.warnings.map((w) => ({ cells: [w.code, w.count, w.cause, w.fix] })),
        })
      : null
  }`;
}

function picture(e: AnalyzedInput): Html | null {
  if (!e.data) return null;
  if (e.kind === "show_gids") return gidTable(showGidsPorts(e.data as ShowGids));
  if (e.kind === "nvidia_smi_topo") return topoPicture(e.data as NvidiaSmiTopo);
  if (e.kind === "nccl_log") return logFacts(e.data as NcclLogData);
  if (e.kind === "nccl_tests") {
    const log = (e.data as NcclTestsData).log;
    return log ? facts([["NCCL log", `${log.verdict}: ${VERDICT_TEXT[log.verdict]}`]]) : null;
  }
  return null;
}

function entrySection(e: AnalyzedInput): Html {
  const summary = e.summary ?? fallbackSummary(e.kind, e.data);
  return h`<section class="entry" data-kind="${e.kind}">
<h2>${e.file}: <code>${e.kind}</code></h2>
${summary ? h`<p class="sub">${summary}</p>` : null}
${e.kind === "unknown" ? null : findingsList(e.findings)}
${problemsList(e.problems ?? [])}
${picture(e)}
</section>`;
}

/** The inputs by name when few, else counted by kind. */
function inputsLine(entries: readonly AnalyzedInput[]): string {
  if (entries.length <= 4) return entries.map((e) => `${e.file} (${e.kind})`).join(", ");
  const kinds = new Map<string, number>();
  for (const e of entries) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
  return [...kinds].map(([k, n]) => `${n} × ${k}`).join(", ");
}

export function renderHtml(entries: readonly AnalyzedInput[]): string {
  const findings = entries.flatMap((e) => e.findings);
  const runs = runsOf(entries);
  const problems = entries.reduce((n, e) => n + (e.problems?.length ?? 0), 0);
  const unread = entries.filter((e) => notRead(e) || readInPart(e)).length;
  const s = statusOf(failIfUnchecked(summarize(findings), unread));
  const text = `${s.text}, ${count(problems, "problem")}${unreadScope(entries, ", ")}`;
  return page({
    title: `kube-rdma analyze: ${count(entries.length, "input")}`,
    subtitle: inputsLine(entries),
    status: { status: s.status, text },
    findings,
    body: [runs.length ? busBwSection(runs) : h``, ...entries.map(entrySection)],
  });
}
