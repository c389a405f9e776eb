/**
 * A capture kept in reStructuredText with each of its lines inside an inline role (`:mark:`# nThread 1 …``, a document
 * converted to RST with its highlighted lines as roles), every line a paragraph of its own and a long one wrapped onto
 * the next line, its role closing there (shape seen in a vendor's benchmark guide committed to a public repository,
 * index-file 22192641432). An interpreted text role is `:role:` then backquoted text
 * (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html#interpreted-text). Each paragraph made only of
 * roles becomes one line, their texts joined by spaces. Proven on runs of such paragraphs; pure.
 */

/** A paragraph's first line opens a role. */
const ROLE_OPENS = /^[ \t]*:[\w.+-]+:`/;
/** A paragraph that is roles and nothing else (whitespace between them). */
const ROLES_ONLY = /^(?:\s*:[\w.+-]+:`[^`]*`)+\s*$/;
const ROLE = /:[\w.+-]+:`([^`]*)`/g;
/** Role paragraphs in a row (blank lines between them) that prove the shape. */
const ROLE_RUN = 4;

/** Lines (blank ones aside) a role's text may wrap over before it closes. */
const MAX_PIECES = 4;

type Group = { from: number; to: number; text: string };

/**
 * The role paragraph that starts at line `i`: its lines until every role it opens is closed (a wrap may leave a blank
 * line inside it, as a double-spaced copy does), read as one line; null when the line opens no role or what follows
 * is not roles alone.
 */
function roleGroup(lines: readonly string[], i: number): Group | null {
  if (!ROLE_OPENS.test(lines[i]!)) return null;
  let joined = lines[i]!.trim();
  let to = i;
  for (let pieces = 1; (joined.split("`").length - 1) % 2 === 1 && pieces < MAX_PIECES; pieces++) {
    let next = to + 1;
    while (next < lines.length && next <= to + 2 && lines[next]!.trim() === "") next++;
    if (next >= lines.length || lines[next]!.trim() === "") return null;
    joined = `${joined} ${lines[next]!.trim()}`;
    to = next;
  }
  if (!ROLES_ONLY.test(joined)) return null;
  return { from: i, to, text: [...joined.matchAll(ROLE)].map((m) => m[1]!.trim()).join(" ") };
}

/** The lines with each run of role paragraphs read as one line per paragraph, else null (no run proves it). */
export function rstRolesOff(lines: readonly string[]): string[] | null {
  const runs: Group[][] = [];
  let run: Group[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    const g = roleGroup(lines, i);
    if (g === null) {
      if (run.length > 0) runs.push(run);
      run = [];
      continue;
    }
    run.push(g);
    i = g.to;
  }
  if (run.length > 0) runs.push(run);
  const kept = runs.filter((r) => r.length >= ROLE_RUN).flat();
  if (kept.length === 0) return null;
  const out = [...lines];
  for (const g of kept) {
    out[g.from] = g.text;
    for (let n = g.from + 1; n <= g.to; n++) out[n] = "\u0000";
  }
  return out.filter((l) => l !== "\u0000");
}
