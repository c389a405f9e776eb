/** Text helpers shared by parsers: captures arrive indented, with prompts, CRLF and tabs. */

export function splitLines(text: string): string[] {
  return text.replace(/\r\n?/g, "\n").split("\n");
}

const PROMPT = /^\s*(?:\[[^\]]*\]\s*)?(?:(?:[\w.@-]+(?::[^\s$#]*)?\s*)?[$#>]|[\w.-]+@[\w.-]+(?::\S*)?%)\s+/;

/**
 * Strips a shell prompt (`$ `, `root@host:~# `, `[root@h ~]# `, csh's and zsh's `user@host% `) from the start of a
 * line.
 */
export function stripPrompt(line: string): string {
  return line.replace(PROMPT, "");
}

/** True when a line looks like a shell prompt followed by a command. */
export function isPromptLine(line: string): boolean {
  return PROMPT.test(line);
}

/** The common leading whitespace of non-blank lines, removed. */
export function dedent(lines: readonly string[]): string[] {
  let min = Number.POSITIVE_INFINITY;
  for (const l of lines) {
    if (l.trim() === "") continue;
    const m = /^[ \t]*/.exec(l);
    min = Math.min(min, m ? m[0].length : 0);
  }
  if (!Number.isFinite(min) || min === 0) return [...lines];
  return lines.map((l) => l.slice(Math.min(min, l.length - l.trimStart().length)));
}
