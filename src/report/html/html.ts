/**
 * HTML built by a tagged template that escapes every value put into it: `h\`<td>${host}</td>\`` is safe for any
 * host name, in text and in quoted attributes alike. Only markup built by `h` itself (an `Html`) goes in unescaped,
 * so a name such as `<script>` or `" onload="` can never become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for element content and for single- or double-quoted attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function partText(v: Part): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(partText).join("");
  return esc(String(v));
}

/** Markup with escaped values; arrays are joined, null/undefined/false print nothing. */
export function h(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += partText(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Catalogue text with `commands in backticks` shown as code (the rest escaped). */
export function richText(text: string): Html {
  return new Html(
    text
      .split("`")
      .map((part, i) => (i % 2 === 1 ? `<code>${esc(part)}</code>` : esc(part)))
      .join(""),
  );
}
