import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "fixtures", "captures");

/** A capture fixture: `fixtures/captures/<kind>/<name>.txt`. */
export function capture(kind: string, name: string): string {
  return readFileSync(join(ROOT, kind, `${name}.txt`), "utf8");
}

/** Tabs expanded to 8-column stops, as a terminal copy-paste does. */
export function expandTabs(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      let out = "";
      for (const ch of line) out += ch === "\t" ? " ".repeat(8 - (out.length % 8)) : ch;
      return out;
    })
    .join("\n");
}

/** The ways users paste a capture: indented, tabs expanded, after a shell prompt line, cut off at the end. */
export function captureVariants(text: string, command: string): Record<string, string> {
  const lines = text.replace(/\n+$/, "").split("\n");
  return {
    asIs: text,
    indented: lines.map((l) => `    ${l}`).join("\n"),
    tabsExpanded: expandTabs(text),
    afterPrompt: `[root@gpu-node-1 ~]# ${command}\n${text}`,
    crlf: text.replace(/\n/g, "\r\n"),
    truncated: text.slice(0, Math.floor(text.length * 0.9)),
  };
}
