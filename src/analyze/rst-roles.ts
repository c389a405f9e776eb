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

type Paragraph = { from: number; to: number; text: string | null };

/** The paragraphs (runs of non-blank lines) with the one line they read as when made only of roles, else null. */
function paragraphs(lines: readonly string[]): Paragraph[] {
  const out: Paragraph[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    let j = i;
    while (j + 1 < lines.length && lines[j + 1]!.trim() !== "") j++;
    const joined = lines
      .slice(i, j + 1)
      .map((l) => l.trim())
      .join(" ");
    const roles = ROLE_OPENS.test(lines[i]!) && ROLES_ONLY.test(joined);
    out.push({ from: i, to: j, text: roles ? [...joined.matchAll(ROLE)].map((m) => m[1]!.trim()).join(" ") : null });
    i = j;
  }
  return out;
}

/** The lines with each run of role paragraphs read as one line per paragraph, else null (no run proves it). */
export function rstRolesOff(lines: readonly string[]): string[] | null {
  const paras = paragraphs(lines);
  const keep = new Set<number>();
  for (let i = 0; i < paras.length; ) {
    if (paras[i]!.text === null) {
      i++;
      continue;
    }
    let j = i;
    while (j < paras.length && paras[j]!.text !== null) j++;
    if (j - i >= ROLE_RUN) for (let k = i; k < j; k++) keep.add(k);
    i = j;
  }
  if (keep.size === 0) return null;
  const out = [...lines];
  for (const k of keep) {
    const p = paras[k]!;
    out[p.from] = p.text!;
    for (let n = p.from + 1; n <= p.to; n++) out[n] = "\u0000";
  }
  return out.filter((l) => l !== "\u0000");
}
