import { stringify } from "yaml";

/** JSON or YAML rendering of a report object; text renderers live beside each report. */
export function renderStructured(format: string, value: unknown): string {
  if (format === "yaml") return stringify(value, { lineWidth: 0 });
  return `${JSON.stringify(value, null, 2)}\n`;
}
