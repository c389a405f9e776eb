/**
 * `fleet topology --from-lldp PATH… | --from-ibnetdiscover FILE`: the topology file `fleet bench --topology FILE`
 * reads, generated from what the fabric says (src/fabric/discover/), not written by hand. Prints YAML (-o text or
 * yaml) with what was not found as comments, or JSON with the units, rails and notFound.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { stringify } from "yaml";
import { type DiscoveredTopology, naturalOrder, topologyFromAttachments } from "../../fabric/discover/from-wiring.js";
import { hopsFromTrace, ibNames } from "../../fabric/discover/ib-paths.js";
import { ibFabricFromText } from "../../fabric/discover/ib-topology.js";
import type { IbWiring } from "../../fabric/discover/ibnetdiscover.js";
import { parseIbtracert, type TracePath } from "../../fabric/discover/ibtracert.js";
import { type LldpNeighbour, parseLldpJson } from "../../fabric/discover/lldp.js";
import type { CommandContext, OptionSpec } from "../spec.js";
import { str, strs, UsageError } from "../spec.js";

export const TOPOLOGY_OPTIONS: readonly OptionSpec[] = [
  {
    name: "from-lldp",
    type: "strings",
    valueName: "PATH",
    description:
      "topology: each node's LLDP neighbours as NODE.json (`lldpcli show neighbors -f json > NODE.json` on the node), or directories of such files",
  },
  {
    name: "from-ibnetdiscover",
    type: "string",
    valueName: "FILE",
    description:
      "topology: the output of `ibnetdiscover` (or `ibnetdiscover -p`) run on one InfiniBand host; - for stdin",
  },
  {
    name: "trace",
    type: "strings",
    valueName: "FILE",
    description:
      "topology: with --from-ibnetdiscover, files of `ibtracert SRC_LID DST_LID` output: each path's leaf uplink and spine port, named as fleet bench names them",
  },
  {
    name: "nics",
    type: "strings",
    valueName: "NAME",
    description:
      "topology: the data NICs in rail order (default: every NIC that shows a switch, in name order), e.g. --nics ens1f0,ens2f0 or mlx5_0,mlx5_1",
  },
];

export const TOPOLOGY_DESCRIPTION = `fleet topology writes the topology file that \`fleet bench --topology FILE\` reads, from the wiring the fabric
reports instead of by hand. Capture the input first:
  RoCE (LLDP): on every node, with lldpd running and LLDP enabled on the switch ports:
      lldpcli show neighbors -f json > $(hostname).json
    then gather the files in one directory and pass --from-lldp DIR (the file name is the node's name).
  InfiniBand: on any one host with an active port and the umad device (/dev/infiniband/umad*):
      ibnetdiscover > fabric.txt        (or ibnetdiscover -p > fabric.txt)
    and pass --from-ibnetdiscover fabric.txt. HCAs are named by their node description, "<host> <device>".
Rail i of a node is the switch its i-th data NIC reaches; nodes whose NICs reach the same switches form one
scalable unit. From InfiniBand, spines (switches with only switches below them) and oversubscription (the worst
leaf's cabled HCA ports : its uplinks; port speeds are taken as equal) are read too; LLDP from the nodes shows
neither, so give --oversubscription to fleet bench. What the wiring does not show — a node without a switch on
some rail (left out of the units), a leaf with no uplink — is listed (YAML comments; notFound in JSON) and on
stderr, never filled in. The path one flow takes on InfiniBand is the subnet manager's, not a guess: save
\`ibtracert SRC_LID DST_LID > trace.txt\` on a host and add --trace trace.txt: each path's leaf uplink and spine
port are printed in the names fleet bench's findings use (unit0/leaf3/uplink5, spine2/port7).`;

/** NODE.json files: each named file, and the .json files of each named directory. */
async function lldpFiles(paths: readonly string[], cwd: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) {
    const abs = resolve(cwd, p);
    const st = await stat(abs).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`--from-lldp ${p}: cannot read it (${e.code ?? e.message}).`, LLDP_HINT);
    });
    const files = st.isDirectory()
      ? (await readdir(abs)).filter((n) => n.endsWith(".json")).map((n) => join(abs, n))
      : [abs];
    for (const f of files) out.set(basename(f).replace(/\.json$/, ""), f);
  }
  if (!out.size) throw new UsageError(`--from-lldp ${paths.join(" ")}: no NODE.json file found.`, LLDP_HINT);
  return out;
}

const LLDP_HINT = "On each node: lldpcli show neighbors -f json > $(hostname).json; then --from-lldp DIR.";
const IB_HINT = "On one InfiniBand host: ibnetdiscover > fabric.txt; then --from-ibnetdiscover fabric.txt.";

async function fromLldp(paths: readonly string[], nics: string[], cwd: string): Promise<DiscoveredTopology> {
  const byNode = new Map<string, LldpNeighbour[]>();
  for (const [node, file] of [...(await lldpFiles(paths, cwd))].sort((a, b) => naturalOrder(a[0], b[0]))) {
    const parsed = parseLldpJson(await readFile(file, "utf8"), file);
    if (typeof parsed === "string") throw new UsageError(parsed, LLDP_HINT);
    byNode.set(node, parsed);
  }
  const found = topologyFromAttachments(byNode, {
    nics,
    hint: "run lldpd on every node and enable LLDP on the switch ports so that each data NIC's switch is known.",
  });
  if (typeof found === "string") throw new UsageError(found, LLDP_HINT);
  return found;
}

async function fromIbnetdiscover(
  file: string,
  nics: string[],
  ctx: CommandContext,
): Promise<DiscoveredTopology & { wiring: IbWiring }> {
  const text =
    file === "-"
      ? await ctx.io.readStdin()
      : await readFile(resolve(ctx.io.cwd, file), "utf8").catch((e: NodeJS.ErrnoException) => {
          throw new UsageError(`--from-ibnetdiscover ${file}: cannot read it (${e.code ?? e.message}).`, IB_HINT);
        });
  const ib = ibFabricFromText(text, file === "-" ? "standard input" : file, nics);
  if (typeof ib === "string") throw new UsageError(ib, IB_HINT);
  return { ...ib.found, wiring: ib.wiring };
}

/** One traced path: its ends and the uplink and spine port it crosses (null inside one leaf). */
export type TracedPath = { file: string; from: string; to: string; uplink: string | null; spinePort: string | null };

async function tracedPaths(
  files: readonly string[],
  found: DiscoveredTopology & { wiring: IbWiring },
  cwd: string,
): Promise<TracedPath[]> {
  const names = ibNames(found.wiring, found);
  if (typeof names === "string") throw new UsageError(`--trace: ${names}`);
  const out: TracedPath[] = [];
  for (const file of files) {
    const text = await readFile(resolve(cwd, file), "utf8").catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`--trace ${file}: cannot read it (${e.code ?? e.message}).`, TRACE_HINT);
    });
    const path = parseIbtracert(text, file);
    if (typeof path === "string") throw new UsageError(path, TRACE_HINT);
    const hops = hopsFromTrace(names, path);
    if (typeof hops === "string") throw new UsageError(`--trace ${file}: ${hops}`, TRACE_HINT);
    const end = (e: TracePath["from"]) => e.desc || `lid ${e.lid}`;
    out.push({ file, from: end(path.from), to: end(path.to), ...hops });
  }
  return out;
}

const TRACE_HINT = "On an InfiniBand host: ibtracert SRC_LID DST_LID > trace.txt (LIDs from ibstat or ibnetdiscover).";

/** A name read from a file or a switch, made one line: a line break in it never starts a line of its own. */
const oneLine = (t: string) =>
  t.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The YAML `--topology FILE` reads, the units and what was not found as comments above it. */
export function topologyYaml(found: DiscoveredTopology, source: string, paths: readonly TracedPath[] = []): string {
  const lines = [`# generated by kube-rdma fleet topology from ${source}`, `# rails: ${found.rails.join(", ")}`];
  for (const [u, unit] of found.units.entries())
    lines.push(`# unit ${u}: leaves ${unit.leaves.join(", ")}; nodes ${unit.nodes.join(", ")}`);
  for (const n of found.notFound) lines.push(`# not found: ${n}`);
  for (const p of paths)
    lines.push(`# path ${p.from} → ${p.to}: ${p.uplink ? `${p.uplink}, ${p.spinePort}` : "inside one leaf"}`);
  // The units' nodes go in the file too: on a cluster they are the units fleet bench plans with (no labels needed).
  const file = { ...found.topology, unitNodes: found.units.map((unit) => unit.nodes) };
  return `${lines.map(oneLine).join("\n")}\n${stringify(file, { collectionStyle: "block" })}`;
}

export async function fleetTopology(ctx: CommandContext): Promise<number> {
  const { values, io } = ctx;
  const extra = ctx.positionals.slice(1);
  if (extra.length)
    throw new UsageError(
      `fleet topology takes options only; got ${extra.map((w) => JSON.stringify(w)).join(", ")}.`,
      `Name the input with --from-lldp ${extra[0]} or --from-ibnetdiscover ${extra[0]}.`,
    );
  const lldp = strs(values, "from-lldp");
  const ib = str(values, "from-ibnetdiscover");
  if (lldp.length > 0 === (ib !== undefined))
    throw new UsageError(
      "fleet topology needs one source: --from-lldp PATH… (RoCE) or --from-ibnetdiscover FILE (InfiniBand).",
      "Run `kube-rdma fleet topology --help` for what to capture on the nodes.",
    );
  const output = str(values, "output") ?? "text";
  if (output === "html") throw new UsageError("fleet topology prints YAML (-o yaml, the default) or JSON (-o json).");
  const nics = strs(values, "nics").flatMap((n) => n.split(",").filter(Boolean));
  const traces = strs(values, "trace");
  if (traces.length && ib === undefined)
    throw new UsageError(
      "--trace reads ibtracert paths against InfiniBand wiring: give --from-ibnetdiscover FILE too.",
      TRACE_HINT,
    );
  const ibFound = ib !== undefined ? await fromIbnetdiscover(ib, nics, ctx) : undefined;
  const found = ibFound ?? (await fromLldp(lldp, nics, io.cwd));
  const paths = ibFound && traces.length ? await tracedPaths(traces, ibFound, io.cwd) : [];
  const source = ib !== undefined ? "ibnetdiscover" : "LLDP";
  for (const n of found.notFound) io.stderr(`not found: ${oneLine(n)}\n`);
  io.stdout(
    output === "json"
      ? `${JSON.stringify({ source, topology: found.topology, rails: found.rails, units: found.units, notFound: found.notFound, paths }, null, 2)}\n`
      : topologyYaml(found, source, paths),
  );
  return 0;
}
