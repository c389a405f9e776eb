/**
 * The one way reports are printed. A reporting command builds its result object and names its report kind; the
 * kind says how that result reads as text, which object `-o json` / `-o yaml` print, and (for the kinds a person
 * opens in a browser) where its HTML page module is. The command never formats output itself.
 *
 * Adding a kind's HTML page is one module under src/report/html/pages/ exporting `renderHtml(result)`, named by the
 * kind's `html` loader. Every loader is a dynamic import: a command pays only for the format it prints.
 */
import { UsageError } from "../cli/spec.js";
import { lineSafe } from "../core/line-safe.js";

export { lineSafe, oneLine } from "../core/line-safe.js";

export const REPORT_FORMATS = ["text", "json", "yaml", "html"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** A kind's HTML page: one self-contained document for one result. */
export type HtmlPage<R> = { renderHtml: (result: R) => string };

/** How a terminal shows text: its width in columns (80 when not a terminal). */
export type TextOptions = { width?: number };

export type ReportKind<R> = {
  /** `verify`, `analyze`, `bench-judge`, `fleet-verify`, … */
  name: string;
  /** What a person reads in a terminal (wrapped to `width` where the kind wraps). */
  text: (result: R, opts: TextOptions) => string;
  /** The object `-o json` and `-o yaml` print (the design.md contract for the kind). */
  structured: (result: R) => unknown;
  /** The kind's HTML page, loaded only for `-o html`. */
  html?: () => Promise<HtmlPage<R>>;
};

/**
 * Text printed on a terminal never carries a control sequence from the data (a host, HCA or pod name with ESC [
 * … could recolour, move the cursor or rewrite earlier report lines): every control character but newline and tab
 * is shown as an escape. The one place every text report passes through.
 */
export function terminalSafe(text: string): string {
  return /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/.test(text)
    ? text.replace(
        /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g,
        (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
      )
    : text;
}

/** Declares a report kind, keeping its result type. */
export function defineReport<R>(kind: ReportKind<R>): ReportKind<R> {
  return kind;
}

/** The formats a kind can be printed in: `text, json, yaml`, and `html` when it has a page. */
export function formatsOf(kind: ReportKind<never>): ReportFormat[] {
  return REPORT_FORMATS.filter((f) => f !== "html" || kind.html !== undefined);
}

/** Renders a result in the chosen format; a format the kind has no renderer for is a usage error (exit 2). */
export async function renderReport<R>(
  kind: ReportKind<R>,
  result: R,
  format: string,
  textOptions: TextOptions = {},
): Promise<string> {
  switch (format) {
    case "text":
      // Values on one line each (lineSafe), then no control sequence anywhere (terminalSafe).
      return terminalSafe(kind.text(lineSafe(result), textOptions));
    case "json":
      return `${JSON.stringify(kind.structured(result), null, 2)}\n`;
    case "yaml": {
      // yaml stays out of the text/JSON path: loading it costs start-up time those formats do not need.
      const { renderStructured } = await import("./structured.js");
      return renderStructured("yaml", kind.structured(result));
    }
    case "html":
      if (kind.html) return (await kind.html()).renderHtml(result);
  }
  const formats = formatsOf(kind as ReportKind<never>);
  throw new UsageError(`the ${kind.name} report has no ${format} format.`, `Use -o ${formats.join(", -o ")}.`);
}
