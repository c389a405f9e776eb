/**
 * Every snapshot (and every `--root` tree's command captures) is checked against its schema
 * (src/host/snapshot-schema-defs.ts) before anything reads it, so that a damaged or hostile snapshot is a clear
 * problem with the JSON path of the bad value, never a crash deep in the analysis or a run of 2^31 GID slots.
 * `docs/snapshot.schema.json` is that schema, emitted by `npm run schema` (a test checks it is current).
 */
import type { ErrorObject } from "ajv";
import { validator } from "./snapshot-validators.js";

export {
  COMMANDS_SCHEMA,
  MAX_CAPTURE_BYTES,
  MAX_FILE_BYTES,
  MAX_LISTING,
  MAX_PATH,
  MAX_RUN_NUMBER,
  MAX_SNAPSHOT_BYTES,
  MAX_TABLE,
  SNAPSHOT_SCHEMA,
} from "./snapshot-schema-defs.js";

/** A bad value: where it is (`$.dirs["/sys/class/infiniband"]`) and what was expected there. */
export type SchemaProblem = { path: string; message: string };

/** The problems of `value` as a snapshot (the first bad value, then ranges that run backwards); empty when valid. */
export function snapshotSchemaProblems(value: unknown): SchemaProblem[] {
  const validate = validator("snapshot");
  if (!validate(value)) return (validate.errors ?? []).slice(0, 1).map(problemOf);
  return backwardRuns(value as { fileRuns?: { from: number; to: number }[]; dirRuns?: Record<string, RunRange> });
}

/** The problems of `value` as `.kube-rdma/commands.json`; empty when valid. */
export function commandsSchemaProblems(value: unknown): SchemaProblem[] {
  const validate = validator("commands");
  return validate(value) ? [] : (validate.errors ?? []).slice(0, 1).map(problemOf);
}

type RunRange = { from: number; to: number };

function backwardRuns(s: { fileRuns?: RunRange[]; dirRuns?: Record<string, RunRange> }): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  (s.fileRuns ?? []).forEach((r, i) => {
    if (r.from > r.to)
      out.push({ path: `$.fileRuns[${i}]`, message: `the run goes backwards (from ${r.from} to ${r.to})` });
  });
  for (const [dir, r] of Object.entries(s.dirRuns ?? {})) {
    if (r.from > r.to) {
      out.push({ path: jsonPath(["dirRuns", dir]), message: `the run goes backwards (from ${r.from} to ${r.to})` });
    }
  }
  return out.slice(0, 1);
}

function problemOf(e: ErrorObject): SchemaProblem {
  const segments = e.instancePath === "" ? [] : e.instancePath.slice(1).split("/").map(unescapePointer);
  if (e.keyword === "required") segments.push(String(e.params.missingProperty));
  if (e.keyword === "propertyNames") segments.push(String(e.params.propertyName));
  return { path: jsonPath(segments), message: wordsOf(e) };
}

function wordsOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type":
      return `expected ${String(p.type)}`;
    case "required":
      return "missing";
    case "maxLength":
      return `longer than ${String(p.limit)} characters`;
    case "maxItems":
      return `more than ${String(p.limit)} entries`;
    case "maxProperties":
      return `more than ${String(p.limit)} entries`;
    case "maximum":
    case "minimum":
      return `out of range (${e.keyword === "maximum" ? "at most" : "at least"} ${String(p.limit)})`;
    case "const":
      return `expected ${JSON.stringify(p.allowedValue)}`;
    case "enum":
      return `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "anyOf":
      return "expected an integer exit code or null";
    case "if":
      return "no exit code and no error saying why the command did not finish";
    case "propertyNames":
      return "the name is too long";
    default:
      return e.message ?? e.keyword;
  }
}

export function unescapePointer(s: string): string {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `["dirs", "/sys/class/net"]` → `$.dirs["/sys/class/net"]`; list indexes as `[3]`. Pure. */
export function jsonPath(segments: readonly string[]): string {
  let out = "$";
  for (const s of segments) {
    if (IDENTIFIER.test(s)) out += `.${s}`;
    else if (/^(?:0|[1-9]\d*)$/.test(s)) out += `[${s}]`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
