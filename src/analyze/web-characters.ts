/**
 * The characters a web page or an editor puts in place of a capture's own when it is copied out: a byte-order mark,
 * zero-width spaces (break opportunities a page inserts in long words), no-break spaces for the spaces of a code
 * block (`&nbsp;`), typographic quotes for `'` and `"` (a blog's renderer "smartening" `CA 'mlx5_0'`), and HTML
 * entities left escaped (`mlx5_0 port 1 ==&gt; ib0`, `0[0] -&gt; 1[1]`), Markdown's `\_`, and a page's own HTML
 * markup around a capture copied from its source. No tool this project reads prints any of them, so each goes back to
 * what the tool printed. Pure.
 */

/**
 * Markdown's backslash before an underscore (`all\_reduce\_perf`, `NCCL\_IB\_HCA`: a writer keeping a name from turning
 * into emphasis, https://spec.commonmark.org/0.31.2/#backslash-escapes): no tool this project reads prints `\_`.
 */
const ESCAPED_UNDERSCORE = /\\_/g;
/** Zero-width characters and the byte-order mark: nothing a tool printed. */
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
/** No-break and narrow no-break spaces, a figure space: spaces. */
const ODD_SPACE = /[\u00a0\u2007\u202f]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032]/g;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/g;
/** Entities an escaped page leaves: the markup ones, quotes, the no-break space, and numeric ones. */
const ENTITY = /&(?:lt|gt|amp|quot|apos|nbsp|#(\d{1,5})|#x([0-9a-fA-F]{1,4}));/g;
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: " " };
/** An entity no tool prints proves a page escaped the text: `&lt;`, `&gt;`, `&nbsp;`, `&quot;`, `&#39;`. */
const ESCAPED = /&(?:lt|gt|nbsp|quot|#\d{1,5}|#x[0-9a-fA-F]{1,4});/;
/**
 * An XML document as a tool printed it keeps its own entities (`nvidia-smi -q -x`): its declaration or root tag is
 * whole (`?>`, `>`), where an escaped page turned those into `&gt;` too.
 */
const RAW_XML = /<\?xml[^>&]*\?>|<nvidia_smi_log>/;

/**
 * A page's own markup around a capture copied from its HTML source: a highlighter's `<span class="line"><span>…</span>`
 * around each line of a code block, a mail archive's `<br>` between lines and `<p>` before some. Only HTML's text and
 * layout tags, never a tool's own XML (`<pci_bus_id>`), and only where many lines carry them.
 */
const HTML_TAG = /<\/?(?:span|div|pre|code|p|br|a|em|strong|b|i|tt|font|h[1-6]|li|ul|ol|blockquote)\b[^<>]*>/gi;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
/** Lines that must carry a tag before the markup is taken for a page's. */
const MARKED_LINES = 8;

function markupOff(text: string): string {
  if (RAW_XML.test(text)) return text;
  let marked = 0;
  for (const line of text.split("\n")) {
    HTML_TAG.lastIndex = 0;
    if (HTML_TAG.test(line) && ++marked >= MARKED_LINES) break;
  }
  HTML_TAG.lastIndex = 0;
  if (marked >= MARKED_LINES) return text.replace(HTML_COMMENT, "").replace(HTML_TAG, "");
  // Fewer lines marked: an element opened and closed on one line is a page's all the same (a rendered note that set
  // a capture's lines in red, `<font color="red">0000:3b:00.1 mlx5_2 … ==> ib2 (Down)</font>`).
  return text.includes("</") ? text.replace(ENCLOSED, "$2") : text;
}

/**
 * An inline HTML element opened and closed within one line, its text kept; a table's cell too (a system-info doc's
 * table of commands, `<td>MLNX_OFED_LINUX-5.3-1.0.5.0:</td>` beside `<td>ofed_info  -s</td>`, shape seen in a
 * repository's docs, index-file 9344345572).
 */
const ENCLOSED = /<(span|font|b|strong|em|i|tt|code|a|mark|u|s|td|th)\b[^<>\n]*>([^<\n]*)<\/\1>/gi;

/** The text with a page's characters put back as the tool printed them, and whether anything changed. */
export function webCharactersOff(text: string): { text: string; changed: boolean } {
  // The markup first: the entities it leaves are the text's own (`&lt;0&gt;` is NCCL's `<0>`).
  let out = markupOff(text)
    .replace(ESCAPED_UNDERSCORE, "_")
    .replace(ZERO_WIDTH, "")
    .replace(ODD_SPACE, " ")
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"');
  // A page that escaped text already escaped (`&amp;gt;`) is undone twice.
  for (let round = 0; round < 2 && ESCAPED.test(out) && !RAW_XML.test(out); round++) out = decoded(out);
  // A page that escaped a page's HTML source (`&lt;span class="line"&gt;`): its markup shows once decoded.
  if (out.includes("<")) out = markupOff(out);
  return { text: out, changed: out !== text };
}

function decoded(text: string): string {
  return text.replace(ENTITY, (m, dec?: string, hex?: string) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
      return code > 0 && code < 0xd800 ? String.fromCharCode(code) : m;
    }
    return NAMED[m.slice(1, -1)] ?? m;
  });
}
