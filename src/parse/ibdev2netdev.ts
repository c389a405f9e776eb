import { naturalCompare } from "../core/natural.js";
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { captureLines, excerpt } from "./capture.js";

export type NetdevMapping = {
  device: string;
  port: number;
  netdev: string;
  /** The netdev's link (`(Up)`); false for `(Down)` and anything else. */
  up: boolean;
  /** `-v` only. */
  pciAddress?: string;
  /** `-v` only: the RDMA port state in parentheses (`ACTIVE`, `DOWN`). */
  portState?: string;
  /** `-v` only: `MT4123 - MCX653105A-HDAT` and the card description. */
  card?: string;
  fwVer?: string;
};

export type Ibdev2netdev = { mappings: NetdevMapping[]; verbose: boolean };

// The port state may be padded inside its parentheses (`(DOWN  )`, as `ibdev2netdev -v` prints it for SR-IOV VFs).
// A note a user wrote after the state is not part of the mapping: a shell comment (`(Down)    # CX-7 1/8 IB`, seen in
// `ibdev2netdev | column -t` pastes) or an arrow pointing at the line (`(Up)    ← the port in use`, seen in a
// guide committed to a public repository, index-file 54497888902).
const TAIL =
  /\bport\s+(\d+)(?:\s+\(\s*([A-Za-z_]+)\s*\))?\s*==>\s*(\S+)\s+\(\s*([^)]*?)\s*\)\s*(?:(?:#|←|<-+|\/\/).*)?$/;
const PCI = /^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;
const DEVICE = /^[A-Za-z][\w.-]*$/;
/**
 * `rdma link show` (iproute2), the same mapping where ibdev2netdev is not installed:
 * `link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens2f0np0`; InfiniBand ports without a netdev print
 * `subnet_prefix … lid …` and no `netdev`.
 */
export const RDMA_LINK =
  /^\s*link\s+([A-Za-z][\w.-]*)\/(\d+)\s(?:.*?\s)?state\s+([A-Z_]+)\s+physical_state\s+([A-Z_]+)(?:.*?\snetdev\s+(\S+))?/;
/** The start of a mapping line whose end is missing (a capture cut short). */
const PARTIAL = /^\s*(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\b|[A-Za-z][\w.-]*\d\s+(?:\(|port\b))/;

function parseHead(head: string): Pick<NetdevMapping, "device" | "pciAddress" | "card" | "fwVer"> | null {
  const words = head.trim().split(/\s+/);
  let i = 0;
  let pciAddress: string | undefined;
  // The -v form starts with the PCI address; words before it are a prefix something put on the line.
  const pci = words.findIndex((w) => PCI.test(w));
  if (pci >= 0) {
    pciAddress = words[pci];
    i = pci + 1;
  } else if (!head.includes("(")) {
    // The plain form (`mlx5_0 port 1 ==> eth0 (Up)`) names the device right before `port`: words before it are a
    // prefix something put on the line (stern's `pod container`, pdsh's `host:`), not the device.
    i = words.length - 1;
  }
  const device = words[i];
  if (!device || !DEVICE.test(device)) return null;
  const rest = words.slice(i + 1).join(" ");
  const fw = /\bfw\s+(\S+)\s*$/.exec(rest);
  const card = (fw ? rest.slice(0, fw.index) : rest).trim();
  return {
    device,
    ...(pciAddress ? { pciAddress } : {}),
    ...(card ? { card } : {}),
    ...(fw ? { fwVer: fw[1]! } : {}),
  };
}

/** Marks a mapping read from an `rdma link` line while the lines are read. */
const LINK = Symbol("rdma link");
type LinkMapping = NetdevMapping & { [LINK]?: true };

/**
 * A port that both an `rdma link` line and an `ibdev2netdev` line map to the same netdev (a paste of both commands) is
 * one mapping: the ibdev2netdev one, whose Up/Down is the netdev's own state; the port state from `rdma link` is kept
 * on it when it has none. Lines of one form repeated (one per host of a pdsh paste) stay as they are.
 */
function oneFormPerPort(sorted: readonly LinkMapping[]): NetdevMapping[] {
  const key = (m: NetdevMapping) => `${m.device}/${m.port}=${m.netdev}`;
  const linkState = new Map<string, string | undefined>();
  const tools = new Set<string>();
  for (const m of sorted) {
    if (m[LINK]) linkState.set(key(m), m.portState);
    else tools.add(key(m));
  }
  return sorted
    .filter((m) => !(m[LINK] && tools.has(key(m))))
    .map(({ [LINK]: link, ...plain }) => {
      const state = linkState.get(key(plain));
      return !link && plain.portState === undefined && state ? { ...plain, portState: state } : plain;
    });
}

/**
 * Parses `ibdev2netdev` (`mlx5_0 port 1 ==> eth0 (Up)`) and `ibdev2netdev -v`
 * (`0000:53:00.0 mlx5_1 (MT4123 - MCX653105A-HDAT) ConnectX-6 … fw 20.31.1014 port 1 (ACTIVE) ==> eth1 (Up)`).
 */
export function parseIbdev2netdev(text: string): ParseResult<Ibdev2netdev> {
  const problems: Problem[] = [];
  const mappings: LinkMapping[] = [];
  let verbose = false;
  let rdmaLinks = 0;
  for (const { text: t, line } of captureLines(text)) {
    const link = t.includes("link") ? RDMA_LINK.exec(t) : null;
    if (link) {
      rdmaLinks++;
      // No netdev (an InfiniBand port): nothing to map. `up` is the RDMA port state here (rdma link has no netdev state).
      if (link[5]) {
        mappings.push({
          [LINK]: true,
          device: link[1]!,
          port: Number(link[2]),
          netdev: link[5],
          up: link[3] === "ACTIVE",
          portState: link[3]!,
        });
        verbose = true;
      }
      continue;
    }
    const tail = TAIL.exec(t);
    if (!tail) {
      if (/==>/.test(t) || PARTIAL.test(t)) {
        problems.push(
          problem(
            "ibdev2netdev.bad_line",
            `Line ${line}: expected "<dev> port <n> ==> <netdev> (Up|Down)", found "${excerpt(t)}".`,
            {
              line,
              hint: "A line cut short usually means the capture was truncated.",
            },
          ),
        );
      }
      continue;
    }
    const head = parseHead(t.slice(0, tail.index));
    if (!head) {
      problems.push(problem("ibdev2netdev.bad_line", `Line ${line}: no RDMA device name before "port".`, { line }));
      continue;
    }
    if (head.pciAddress || tail[2]) verbose = true;
    mappings.push({
      ...head,
      port: Number(tail[1]),
      netdev: tail[3]!,
      up: tail[4]!.trim().toLowerCase() === "up",
      ...(tail[2] ? { portState: tail[2].toUpperCase() } : {}),
    });
  }
  if (mappings.length === 0) {
    if (rdmaLinks > 0 && problems.length === 0) return ok({ mappings, verbose: true });
    if (problems.length > 0) return fail(...problems);
    return fail(
      problem("ibdev2netdev.unrecognised", "No `<dev> port <n> ==> <netdev> (Up|Down)` line was found.", {
        hint: "Capture it with `ibdev2netdev -v > ibdev2netdev.txt` (MLNX_OFED).",
      }),
    );
  }
  mappings.sort((a, b) => naturalCompare(a.device, b.device) || a.port - b.port);
  return ok({ mappings: oneFormPerPort(mappings), verbose }, problems);
}
