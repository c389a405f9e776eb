/**
 * Names that come from a host (RDMA devices, network interfaces, the hostname) end up in YAML, shell, JSON and
 * terminal output. They are judged once, where the node model is built: a name the kernel would not give is refused
 * there, so no later stage ever holds one.
 *
 * The sets, from the kernel:
 * - network interfaces: `dev_valid_name()` in net/core/dev.c refuses "", ".", "..", names of IFNAMSIZ (16) bytes or
 *   more, and any '/', ':' or whitespace
 *   (https://github.com/torvalds/linux/blob/master/net/core/dev.c). udev and systemd name them from letters,
 *   digits, '_', '-' and '.' (eth0, ens1f0np0, eth0.100, bond0).
 * - RDMA devices: IB_DEVICE_NAME_MAX is 64 (include/rdma/ib_verbs.h); drivers and rdma-core's udev rules name them
 *   mlx5_0, mlx5_bond_0, ibp59s0, rocep1s0f0, irdma0, rxe0, siw0
 *   (https://github.com/linux-rdma/rdma-core/blob/master/kernel-boot/rdma_rename.c).
 * - the hostname: at most HOST_NAME_MAX (64) bytes; RFC 1123 labels of letters, digits and '-', joined by '.'.
 * A name outside these (a newline, an escape sequence, quotes, `$(…)`, '#') is not one a kernel gave: the input is
 * damaged or hostile.
 */

import { type Problem, problem } from "./result.js";

const DEVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,62}$/;
const HOSTNAME = /^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,62})$/;

/** True for a name the kernel could have given an RDMA device or a network interface. */
export function isPlausibleDeviceName(name: string): boolean {
  return DEVICE_NAME.test(name);
}

/** True for a hostname the kernel could hold and Kubernetes could name a node after. */
export function isPlausibleHostname(name: string): boolean {
  return HOSTNAME.test(name);
}

/**
 * Characters that change the structure of whatever they are printed in: C0 and C1 controls (newline, carriage return,
 * ESC, CSI), DEL, and the Unicode line and paragraph separators (a line break to JavaScript and some editors).
 */
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const UNSAFE_TEXT_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Text as one printable line: every character of UNSAFE_TEXT shown as an escape (`\n`, `\x1b`, `\u2028`). */
export function escapeLine(text: string): string {
  if (!UNSAFE_TEXT.test(text)) return text;
  return text.replace(UNSAFE_TEXT_ALL, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** A refused name as a message shows it: quoted, every control character escaped, at most 80 characters. */
export function quoteName(name: string): string {
  const shown = escapeLine(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  return `"${shown.replace(/"/g, '\\"')}"`;
}

export type NameKind = "RDMA device" | "network interface" | "hostname";

/** The problem a refused name gives, wherever it is met. */
export function implausibleName(what: NameKind, name: string, path: string): Problem {
  return problem(
    "host.implausible_name",
    `a ${what} named ${quoteName(name)}: not a name the kernel gives (letters, digits, '_', '-', '.'; no control characters, quotes, spaces or shell syntax), so it is left out of every report and output`,
    {
      path,
      hint: "The host's /sys, /proc or the snapshot is damaged or was altered: inspect it (ls -b) before trusting this node.",
    },
  );
}
