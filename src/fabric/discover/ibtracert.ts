/**
 * A LID pair's path as the switches' forwarding tables route it, read from `ibtracert SRC_LID DST_LID`:
 *
 *   From ca {0x<guid>} portnum 1 lid 5-5 "<desc>"
 *   [1] -> switch port {0x<guid>}[7] lid 4-4 "<desc>"      (leaves the source by its port 1, enters the switch at 7)
 *   [33] -> ca port {0x<guid>}[1] lid 12-12 "<desc>"       (leaves that switch by its port 33)
 *   To ca {0x<guid>} portnum 1 lid 12-12 "<desc>"
 *
 * Each `[n]` is the port the previous node sends on, so a switch's out port is the `[n]` of the line after it.
 * Shape from infiniband-diags' ibtracert(8) and tracert.c in github.com/linux-rdma/rdma-core. Pure.
 */

/** One switch on the path: where the flow enters it and the port its forwarding table sends it out of. */
export type TraceHop = { guid: string; name: string; lid: number; inPort: number; outPort: number };

export type TracePath = {
  from: { kind: string; guid: string; lid: number; desc: string };
  to: { kind: string; guid: string; lid: number; desc: string };
  hops: TraceHop[];
};

const FROM_TO =
  /^(From|To)\s+(ca|switch|router)\s+\{0x([0-9a-fA-F]+)\}\s+portnum\s+(\d+)\s+lid\s+(\d+)(?:-\d+)?\s*(?:"([^"]*)")?/;
const STEP =
  /^\[(\d+)\]\s*->\s*(ca|switch|router)\s+port\s+\{0x([0-9a-fA-F]+)\}\[(\d+)\]\s+lid\s+(\d+)(?:-\d+)?\s*(?:"([^"]*)")?/;

const norm = (guid: string) => guid.toLowerCase().replace(/^0+(?=.)/, "");

/** The path, or a message saying what was expected (an ibtracert that failed says so on its own lines). */
export function parseIbtracert(text: string, source: string): TracePath | string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  let from: TracePath["from"] | undefined;
  let to: TracePath["to"] | undefined;
  const steps: { sendPort: number; kind: string; guid: string; inPort: number; lid: number; desc: string }[] = [];
  for (const line of lines) {
    const e = FROM_TO.exec(line);
    if (e) {
      const end = { kind: e[2]!, guid: norm(e[3]!), lid: Number(e[5]), desc: e[6] ?? "" };
      if (e[1] === "From") from = end;
      else to = end;
      continue;
    }
    const s = STEP.exec(line);
    if (s)
      steps.push({
        sendPort: Number(s[1]),
        kind: s[2]!,
        guid: norm(s[3]!),
        inPort: Number(s[4]),
        lid: Number(s[5]),
        desc: s[6] ?? "",
      });
  }
  if (!from || !steps.length) {
    const failure = lines.find((l) => /iberror|ibwarn|failed|unreachable/i.test(l));
    return failure
      ? `${source}: ibtracert did not reach the destination: ${failure}`
      : `${source} is not ibtracert output: expected a "From ca {0x<guid>} portnum 1 lid N" line and "[port] -> switch port {0x<guid>}[port] lid N" hops, as \`ibtracert SRC_LID DST_LID\` prints.`;
  }
  if (!to) return `${source}: the trace stops before its "To …" line: the destination was not reached.`;
  const hops: TraceHop[] = [];
  for (const [i, s] of steps.entries()) {
    if (s.kind !== "switch") continue;
    const next = steps[i + 1];
    if (!next)
      return `${source}: the trace ends at switch 0x${s.guid} with no out port: the destination was not reached.`;
    hops.push({ guid: s.guid, name: s.desc || `0x${s.guid}`, lid: s.lid, inPort: s.inPort, outPort: next.sendPort });
  }
  return { from, to, hops };
}
