/** GID text as users paste it: sysfs/show_gids print 8 uncompressed groups; `ibv_devinfo -v` prints compressed. */

const GROUP = /^[0-9a-fA-F]{1,4}$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4Groups(text: string): string[] | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  const bytes = m.slice(1, 5).map(Number);
  if (bytes.some((b) => b > 255)) return null;
  const hex = bytes.map((b) => b.toString(16).padStart(2, "0"));
  return [`${hex[0]}${hex[1]}`, `${hex[2]}${hex[3]}`];
}

function groupsOf(part: string): string[] | null {
  if (part === "") return [];
  const raw = part.split(":");
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const g = raw[i]!;
    if (i === raw.length - 1 && g.includes(".")) {
      const v4 = ipv4Groups(g);
      if (!v4) return null;
      out.push(...v4);
    } else if (GROUP.test(g)) {
      out.push(g.toLowerCase().padStart(4, "0"));
    } else {
      return null;
    }
  }
  return out;
}

/** `::ffff:10.0.60.3` → `0000:0000:0000:0000:0000:ffff:0a00:3c03`; null when the text is not an IPv6 address. */
const FULL = /^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}$/;
/** `::ffff:10.0.60.3`, the form `ibv_devinfo -v` prints for every IPv4 RoCE GID: worth a fast path. */
const MAPPED_V4 = /^::ffff:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i;
const hex2 = (n: number) => (n < 16 ? "0" : "") + n.toString(16);

function mappedGid(m: RegExpExecArray): string | null {
  const [a, b, c, d] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  if (a > 255 || b > 255 || c > 255 || d > 255) return null;
  return `0000:0000:0000:0000:0000:ffff:${hex2(a)}${hex2(b)}:${hex2(c)}${hex2(d)}`;
}

export function expandGid(text: string): string | null {
  const t = text.trim();
  if (FULL.test(t)) return t.toLowerCase();
  const mapped = MAPPED_V4.exec(t);
  if (mapped) return mappedGid(mapped);
  if (t.length === 0 || t.length > 45) return null;
  const halves = t.split("::");
  if (halves.length > 2) return null;
  let groups: string[];
  if (halves.length === 2) {
    const head = groupsOf(halves[0]!);
    const tail = groupsOf(halves[1]!);
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...Array<string>(8 - head.length - tail.length).fill("0000"), ...tail];
  } else {
    const all = groupsOf(t);
    if (all?.length !== 8) return null;
    groups = all;
  }
  return groups.join(":");
}

const MAPPED_PREFIX = "0000:0000:0000:0000:0000:ffff:";

/** The IPv4 address of an IPv4-mapped GID (NCCL's test: 80 zero bits then `ffff`), else null. */
export function ipv4OfGid(gid: string): string | null {
  if (gid.length !== 39 || !gid.startsWith(MAPPED_PREFIX)) return null;
  const hi = Number.parseInt(gid.slice(30, 34), 16);
  const lo = Number.parseInt(gid.slice(35, 39), 16);
  if (Number.isNaN(hi) || Number.isNaN(lo)) return null;
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export type GidClass = "empty" | "link_local" | "ipv4" | "ipv6_global";

/** Classifies an uncompressed GID the way NCCL does (configured / link-local / IPv4-mapped). */
export function classifyGid(gid: string): GidClass {
  if (/^[0:]+$/.test(gid) || gid === "fe80:0000:0000:0000:0000:0000:0000:0000") return "empty";
  if (gid.startsWith("fe80:0000:0000:0000:")) return "link_local";
  if (ipv4OfGid(gid)) return "ipv4";
  return "ipv6_global";
}

/**
 * The RFC 5952 text of an IPv6 address or GID (`fd00:0010:0000:…:0001` → `fd00:10::1`): lowercase, no leading zeros,
 * the longest run of two or more zero groups (the first on a tie) as `::`; null when the text is not an IPv6 address.
 * Hex groups throughout, as `inet_ntop` and WHATWG URLs write them for global addresses (no dotted IPv4 tail).
 */
export function compressGid(text: string): string | null {
  const full = expandGid(text);
  if (full === null) return null;
  const groups = full.split(":").map((g) => g.replace(/^0{1,3}/, ""));
  let start = -1;
  let length = 0;
  for (let i = 0; i < groups.length; ) {
    let j = i;
    while (groups[j] === "0") j++;
    if (j - i > length) [start, length] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (length < 2) return groups.join(":");
  return `${groups.slice(0, start).join(":")}::${groups.slice(start + length).join(":")}`;
}
