import { stringify } from "yaml";
import { escapeLine, UNSAFE_TEXT } from "../core/device-name.js";
import type { Finding } from "../core/finding.js";
import type { NcclEnvResult } from "./env.js";

export type NcclEnvFormat = "text" | "shell" | "dotenv" | "json" | "yaml" | "k8s";
export const NCCL_ENV_FORMATS: readonly NcclEnvFormat[] = ["text", "shell", "dotenv", "json", "yaml", "k8s"];

const SAFE = /^[A-Za-z0-9_=,.:/+@%-]*$/;

function shellQuote(v: string): string {
  return SAFE.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** A value as a .env file writes it: bare when plain, else quoted so every dotenv reader (docker compose, dotenv,
 * python-dotenv) gives back exactly the value: single quotes (taken literally, no `$` expansion), or double quotes with
 * `\\`, `"`, `$` and newlines escaped when the value holds a single quote or a newline. */
export function dotenvQuote(v: string): string {
  if (/^[A-Za-z0-9_,.:/+@%-]*$/.test(v)) return v;
  if (!/['\n\r]/.test(v)) return `'${v}'`;
  // Inside double quotes a shell that sources the file (`. x.env`) still runs `…` and $(…): escape all of them.
  return `"${v
    .replace(/[\\"$`]/g, (c) => `\\${c}`)
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")}"`;
}

/**
 * Values no quoting makes safe everywhere they are pasted: control characters (a newline ends a `.env` line in one
 * reader and not in another; an escape sequence rewrites the terminal it is printed on). No NCCL variable holds one.
 * The same set the node model refuses in names (core/device-name.ts).
 */
export const UNSAFE_VALUE = UNSAFE_TEXT;

/** A container env value: Kubernetes expands $(VAR) in env values, and `$$` is its escape for a literal `$`. */
export function k8sEnvValue(v: string): string {
  return v.replace(/\$\(/g, "$$$$(");
}

function comment(text: string): string {
  // Control characters in text from the host (interface names in reasons) shown as escapes; the reason's own line
  // breaks stay line breaks, each line a comment.
  return text
    .split("\n")
    .map(escapeLine)
    .map((l) => `# ${l}`)
    .join("\n");
}

function findingLines(findings: readonly Finding[]): string[] {
  return findings.map((f) => comment(`${f.severity.toUpperCase()} ${f.code} (${f.subject}): ${f.message}`));
}

/** Renders the derived variables; shell/dotenv/text carry each reason as a comment above its variable. */
export function renderNcclEnv(r: NcclEnvResult, format: NcclEnvFormat, source?: string): string {
  const refused = Object.keys(r.env).filter((n) => UNSAFE_VALUE.test(r.env[n] ?? ""));
  const names = Object.keys(r.env).filter((n) => !refused.includes(n));
  const refusedLines = refused.map(
    (n) =>
      `# ${n} not written: its value holds control characters, which no quoting makes safe (${JSON.stringify(r.env[n])})`,
  );
  switch (format) {
    case "json":
      return `${JSON.stringify({ schemaVersion: 1, env: r.env, reasons: r.reasons, findings: r.findings, dataHcas: r.dataHcas }, null, 2)}\n`;
    case "yaml":
      return stringify(
        { schemaVersion: 1, env: r.env, reasons: r.reasons, findings: r.findings, dataHcas: r.dataHcas },
        { lineWidth: 0 },
      );
    case "k8s":
      // A container `env:` list, ready to paste under `containers[].env` (values double-quoted: "=mlx5_1,…").
      return [
        ...refusedLines.map((l) => `${l}\n`),
        ...names.map((n) => `- name: ${n}\n  value: ${JSON.stringify(k8sEnvValue(r.env[n] ?? ""))}\n`),
      ].join("");
    default: {
      const prefix = format === "shell" ? "export " : "";
      const head = source ? [`# NCCL variables for ${source} (kube-rdma nccl-env)`] : [];
      const body = names.flatMap((n) => [
        comment(r.reasons[n] ?? ""),
        `${prefix}${n}=${format === "dotenv" ? dotenvQuote(r.env[n] ?? "") : shellQuote(r.env[n] ?? "")}`,
      ]);
      const unset = Object.keys(r.reasons)
        .filter((n) => !(n in r.env))
        .map((n) => comment(`${n} not set: ${r.reasons[n]!.replace(/^not set: /, "")}`));
      if (unset.length) body.push(...unset);
      const notes = r.findings.length ? ["", ...findingLines(r.findings)] : [];
      return `${[...head, ...body, ...refusedLines, ...notes].join("\n")}\n`;
    }
  }
}
