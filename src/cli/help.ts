import type { CommandSpec, OptionSpec } from "./spec.js";

function optionLabel(o: OptionSpec): string {
  const long = `--${o.name}${o.type === "boolean" ? "" : ` ${o.valueName ?? "VALUE"}`}`;
  return o.short ? `-${o.short}, ${long}` : `    ${long}`;
}

function optionText(o: OptionSpec): string {
  const extras: string[] = [];
  if (o.choices) extras.push(`one of: ${o.choices.join(", ")}`);
  if (o.default !== undefined && o.default !== false) extras.push(`default: ${String(o.default)}`);
  if (o.type === "strings") extras.push("repeatable or comma-separated");
  return extras.length ? `${o.description} (${extras.join("; ")})` : o.description;
}

export function renderOptions(options: readonly OptionSpec[]): string {
  const labels = options.map(optionLabel);
  const width = Math.min(34, Math.max(0, ...labels.map((l) => l.length)) + 2);
  return options
    .map((o, i) => {
      const label = labels[i]!;
      const pad = label.length >= width ? `\n  ${" ".repeat(width)}` : " ".repeat(width - label.length);
      return `  ${label}${pad}${optionText(o)}`;
    })
    .join("\n");
}

export function renderCommandHelp(cmd: CommandSpec): string {
  const parts = [`Usage: ${cmd.usage}`, "", cmd.summary];
  if (cmd.description) parts.push("", cmd.description.trim());
  if (cmd.options.length) parts.push("", "Options:", renderOptions(cmd.options));
  if (cmd.examples.length) {
    parts.push("", "Examples:");
    for (const [line, what] of cmd.examples) parts.push(`  # ${what}`, `  ${line}`);
  }
  return `${parts.join("\n")}\n`;
}
