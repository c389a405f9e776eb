import { splitLines } from "../core/text.js";

/** One line of a pasted capture with its 1-based line number in the input. */
export type CaptureLine = { text: string; line: number };

/**
 * Longest line the host-tool parsers look at. No line of show_gids, ibv_devinfo, ibstat, ibdev2netdev or nvidia-smi
 * comes near it; skipping longer ones keeps every line regex linear on hostile input (a 1 MB line of spaces).
 */
export const MAX_LINE_LENGTH = 4096;

/** ANSI SGR sequences (ESC [ … m). */
const ANSI_STYLE = /\u001b\[[0-9;]*m/g;

/**
 * The non-blank lines of a capture, CR/LF normalised and trailing whitespace removed; the leading indentation is
 * kept (some formats nest by indentation). Parsers ignore lines they do not recognise, so a shell prompt line
 * (`root@node:~# show_gids`) before the output is harmless. `maxLength`: a reader that cuts long lines itself (a table
 * collapsed onto one line) may take them.
 */
export function captureLines(text: string, maxLength = MAX_LINE_LENGTH): CaptureLine[] {
  const out: CaptureLine[] = [];
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.length > maxLength) continue;
    // Terminal styling (nvidia-smi topo underlines its header on a TTY) is not part of the text.
    const t = (raw.includes("\u001b[") ? raw.replace(ANSI_STYLE, "") : raw).trimEnd();
    if (t.trim() !== "") out.push({ text: t, line: i + 1 });
  }
  return out;
}

/** Whitespace-separated tokens of a line (tabs and runs of spaces are the same: captures expand tabs). */
export function tokens(text: string): string[] {
  const t = text.trim();
  return t === "" ? [] : t.split(/\s+/);
}

/** Shortens a line for a problem message. */
export function excerpt(text: string, max = 80): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The leading decimal number of a text (`200 Gb/sec (4X HDR)` → 200, `2.5` → 2.5), else null. */
export function leadingNumber(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)/.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * A field's value without the note a writer put after it on the same line: a shell comment (`Active   # 反之为 Down`,
 * shape seen in Chinese RDMA notes committed to a public repository, index-file 49019899460) or an arrow
 * (`ACTIVE  <-- this one`, `← the port in use`), each after white space. The fields ibstat and ibv_devinfo print
 * (a state, a rate, a GUID, a LID) hold none of these.
 */
export function withoutNote(value: string): string {
  return value.replace(/\s+(?:#|←|<-+)(?:\s.*)?$/, "").trim();
}
