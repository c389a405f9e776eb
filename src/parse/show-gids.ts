import { naturalCompare } from "../core/natural.js";
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { captureLines, excerpt, tokens } from "./capture.js";
import { expandGid, ipv4OfGid } from "./gid-text.js";

/** One row of `show_gids` — the `gids -o json` contract. */
export type GidRow = {
  device: string;
  port: number;
  index: number;
  /** Uncompressed, lower case: `0000:0000:0000:0000:0000:ffff:190b:8002`. */
  gid: string;
  ipv4: string | null;
  version: "v1" | "v2" | null;
  netdev: string | null;
};

export type ShowGids = {
  gids: GidRow[];
  /** The `n_gids_found=N` footer, null when the capture has none (the reference setup's pasted sample omits it). */
  nGidsFound: number | null;
  /** True when the footer is there and counts exactly the rows read: nothing was cut off the end. */
  complete: boolean;
  /** The device named by the capture's last row line, cut or not: the one a truncated paste may have lost rows of. */
  lastDevice: string | null;
};

const DEVICE = /^[A-Za-z][\w.-]*$/;
const NUMBER = /^\d+$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const VERSION = /^[vV]\d$/;
const HEADER = /^\s*DEV\s+PORT\s+INDEX\s+GID\b/;
/**
 * A GID a page masked in part (`fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx`, the interface id hidden; shape seen in a blog
 * post committed to a public repository, index-file 56882768507): eight groups, the first printed, others `xxxx`.
 */
const MASKED_GID = /^[0-9a-fA-F]{4}(?::(?:[0-9a-fA-F]{4}|[xX*]{4})){7}$/;
const DASHES = /^\s*---\s+----\s+-----\s+---/;
const FOOTER = /^\s*n_gids_found=(\d+)\s*$/;
const ROW_START = /^\s*[A-Za-z][\w.-]*\s+\d+\s+\d+\s+[0-9a-fA-F:]/;
/**
 * The rest of a row that a mail client or a narrow window wrapped onto the next line: its IPv4 (or not), its version,
 * maybe its netdev (`10.20.43.17     v1    rdma_p0.43`, `v2    rdma_p0`; shape seen in a mailing list's archive,
 * index-file 7540869538).
 */
const ROW_TAIL = /^\s*(?:\d{1,3}(?:\.\d{1,3}){3}\s+)?[vV]\d(?:\s+[A-Za-z][\w.@-]*)?\s*$/;
/** Shaped like a row (a name, two numbers, a GID) whatever the name holds: a name we cannot read is a problem. */
const ROW_LIKE = /^\s*\S+\s+\d+\s+\d+\s+[0-9a-fA-F]{1,4}:[0-9a-fA-F:]/;
/**
 * GID indices and ports are small: an HCA port's GID table has gid_tbl_len slots (at most a few hundred: 256 on
 * mlx5 RoCE ports, 128 on InfiniBand) and ports are numbered 1..255 (u8 in the verbs API, ibv_query_port(3)).
 * A larger value is damage, and would otherwise size arrays from it (a hole scan over 4,294,967,296 slots).
 */
export const MAX_GID_INDEX = 4095;
export const MAX_PORT = 255;

type RowParse = { row: GidRow; problems: Problem[] } | { error: string };

function parseRow(text: string, line: number): RowParse {
  const [device, port, index, gidText, ...rest] = tokens(text);
  if (!device || !DEVICE.test(device) || !port || !NUMBER.test(port) || !index || !NUMBER.test(index)) {
    return { error: "expected DEV PORT INDEX GID [IPv4] VER DEV" };
  }
  if (Number(index) > MAX_GID_INDEX || Number(port) > MAX_PORT || Number(port) === 0) {
    return {
      error: `port ${port} / GID index ${index} is out of range (ports 1..${MAX_PORT}, GID indices 0..${MAX_GID_INDEX})`,
    };
  }
  const expanded = gidText ? expandGid(gidText) : null;
  const masked = expanded === null && gidText !== undefined && MASKED_GID.test(gidText);
  const gid = expanded ?? (masked ? gidText!.toLowerCase() : null);
  if (!gid) return { error: `the GID "${gidText ?? ""}" is not 8 groups of hex digits` };
  let ipv4: string | null = null;
  let version: GidRow["version"] = null;
  let netdev: string | null = null;
  const problems: Problem[] = [];
  for (const t of rest) {
    if (IPV4.test(t) && ipv4 === null) ipv4 = t;
    // An empty IPv4 cell of a table a page rewrote (a Markdown table's empty cell, kept as `-` in its place).
    else if (t === "-" && ipv4 === null && version === null) continue;
    else if (/^\d[\d.]*$/.test(t)) return { error: `the IPv4 column "${t}" is not an address` };
    else if (VERSION.test(t) && version === null) version = t.toLowerCase() === "v2" ? "v2" : "v1";
    // A full stop or comma of the sentence the row was pasted into, glued to the last column (`net1.`, seen at
    // https://github.com/k8snetworkplumbingwg/multus-cni/issues/1100). The kernel would accept a name ending in a dot
    // (dev_valid_name in net/core/dev.c refuses only `.`, `..`, `/`, `:` and blanks), but the names udev, VLANs
    // (`eth0.100`) and CNI plugins give never end in one: the mark is read as the sentence's.
    else if (netdev === null) netdev = t.replace(/[.,;]$/, "");
    else return { error: `unexpected extra column "${t}"` };
  }
  const mapped = ipv4OfGid(gid);
  if (ipv4 === null) ipv4 = mapped;
  else if (mapped !== null && mapped !== ipv4) {
    problems.push(
      problem("show_gids.ipv4_mismatch", `The IPv4 column ${ipv4} does not match the GID ${gid} (${mapped}).`, {
        line,
        hint: "The capture may have been edited; re-run show_gids.",
      }),
    );
  }
  if (masked)
    problems.push(
      problem(
        "show_gids.masked_gid",
        `Line ${line}: the GID ${gidText} was masked in the paste; its value is not checked.`,
        {
          line,
          hint: "A page hid part of the address; the row's device, index, version and netdev are read as printed.",
        },
      ),
    );
  return { row: { device, port: Number(port), index: Number(index), gid, ipv4, version, netdev }, problems };
}

/** Natural device order, then port, then index; device names are ranked once (few devices, many rows). */
function sortRows(rows: GidRow[]): GidRow[] {
  const rank = new Map([...new Set(rows.map((r) => r.device))].sort(naturalCompare).map((d, i) => [d, i]));
  return rows.sort((a, b) => rank.get(a.device)! - rank.get(b.device)! || a.port - b.port || a.index - b.index);
}

/**
 * Parses the output of MLNX_OFED's `show_gids` (tab-separated as the script prints it, or with tabs expanded /
 * collapsed to spaces as in pasted captures). Rows come back in natural device order (mlx5_2 before mlx5_10).
 */
export function parseShowGids(text: string): ParseResult<ShowGids> {
  const problems: Problem[] = [];
  const rows = new Map<string, GidRow>();
  let sawHeader = false;
  let nGidsFound: number | null = null;
  let rowLines = 0;
  let lastDevice: string | null = null;
  const lines = captureLines(text);
  for (let i = 0; i < lines.length; i++) {
    const { line } = lines[i]!;
    let t = lines[i]!.text;
    if (HEADER.test(t) || DASHES.test(t)) {
      sawHeader = true;
      continue;
    }
    const footer = FOOTER.exec(t);
    if (footer) {
      nGidsFound = Number(footer[1]);
      continue;
    }
    if (!ROW_START.test(t)) {
      if (ROW_LIKE.test(t)) {
        // A row whose device name is not a device name (shell characters, terminal escapes): never dropped in silence.
        problems.push(
          problem(
            "show_gids.bad_row",
            `Line ${line}: the device name is not an RDMA device name; found "${excerpt(JSON.stringify(t).slice(1, -1))}".`,
            {
              line,
              hint: "Device names are letters, digits, '_', '.', '-' (mlx5_0): the capture was edited or damaged; re-run show_gids.",
            },
          ),
        );
      }
      continue;
    }
    lastDevice = tokens(t)[0] ?? lastDevice;
    // A row a mail client wrapped: its IPv4 and version (and netdev) on the next line.
    const next = lines[i + 1]?.text;
    if (next !== undefined && ROW_TAIL.test(next) && !tokens(t).some((x) => VERSION.test(x))) {
      t = `${t} ${next.trim()}`;
      i++;
    }
    const parsed = parseRow(t, line);
    if ("error" in parsed) {
      problems.push(
        problem("show_gids.bad_row", `Line ${line}: ${parsed.error}; found "${excerpt(t)}".`, {
          line,
          hint: "A row cut short usually means the capture was truncated; re-run show_gids and paste all of it.",
        }),
      );
      continue;
    }
    rowLines++;
    if (parsed.problems.length > 0) problems.push(...parsed.problems);
    const r = parsed.row;
    const key = `${r.device}/${r.port}/${r.index}`;
    if (rows.has(key)) {
      problems.push(
        problem("show_gids.duplicate_row", `Line ${line}: ${key} appears twice; the later row is kept.`, { line }),
      );
    }
    rows.set(key, r);
  }
  if (!sawHeader && rowLines === 0 && nGidsFound === null) {
    return fail(
      problem("show_gids.unrecognised", "No show_gids header, row or n_gids_found footer was found.", {
        hint: "Capture it with `show_gids > gids.txt` (MLNX_OFED), or use `kube-rdma gids` which reads sysfs directly.",
      }),
    );
  }
  if (rowLines === 0 && nGidsFound === null) {
    // Only the header (and maybe rows too damaged to read), no footer: the paste stopped before the table.
    // An empty table says so itself (`n_gids_found=0`); this is not one.
    return fail(
      ...problems,
      problem(
        "show_gids.no_rows",
        "The header was read but no GID row and no n_gids_found footer: the capture was cut after the header. No GID was checked.",
        { hint: "Re-run show_gids and paste all of it (or use `kube-rdma gids`, which reads sysfs directly)." },
      ),
    );
  }
  if (nGidsFound !== null && nGidsFound !== rowLines) {
    problems.push(
      problem(
        "show_gids.count_mismatch",
        `The footer says n_gids_found=${nGidsFound} but ${rowLines} rows were read.`,
        { hint: "The capture is incomplete or edited; re-run show_gids and paste all of it." },
      ),
    );
  }
  const complete = nGidsFound !== null && nGidsFound === rowLines;
  return ok({ gids: sortRows([...rows.values()]), nGidsFound, complete, lastDevice }, problems);
}
