/**
 * The one schema every snapshot (and every `--root` tree's command captures) is checked against before anything
 * reads it: every table, every value's type, every size and every range is bounded here, so that a damaged or
 * hostile snapshot is a clear problem with the JSON path of the bad value, never a crash deep in the analysis or a
 * run of 2^31 GID slots. `docs/snapshot.schema.json` is this schema, emitted by `npm run schema` (a test checks it
 * is current).
 */
import { createRequire } from "node:module";
import type { ErrorObject, KeywordCxt, ValidateFunction } from "ajv";
import { MAX_LISTING } from "./limits.js";

/**
 * ajv is loaded on the first validation, not with this module: its ~40 CommonJS files cost every command that only
 * needs the limits below (`gids --root` reads no snapshot) a third of its start-up.
 */
const loadAjv = () => createRequire(import.meta.url)("ajv") as typeof import("ajv");

/** A file's text in a snapshot (sysfs attributes are ≤ 4 KiB; /proc/net/route on a big host is the largest). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** A command's stdout or stderr (nvidia-smi -q -x of 8 GPUs is ~300 KB). */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** The largest number a run of numbered files or names may reach (a GID table has at most 256 slots). */
export const MAX_RUN_NUMBER = 4095;
export { MAX_LISTING } from "./limits.js";
/** Entries of one table (files, dirs, links, …). */
export const MAX_TABLE = 1_000_000;
/** A path or a command line. */
export const MAX_PATH = 4096;
/** A whole snapshot as JSON text (a healthy 8-GPU node writes ~300 KB). */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

const shortText = { type: "string", maxLength: MAX_PATH } as const;
const fileText = { type: "string", maxLength: MAX_FILE_BYTES } as const;
const runNumber = { type: "integer", minimum: 0, maximum: MAX_RUN_NUMBER } as const;
const table = (values: object) =>
  ({
    type: "object",
    maxProperties: MAX_TABLE,
    propertyNames: { type: "string", maxLength: MAX_PATH },
    additionalProperties: values,
  }) as const;

const readError = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "string", maxLength: 64 }, message: shortText },
} as const;

const capture = { type: "string", maxLength: MAX_CAPTURE_BYTES } as const;

/** One command's outcome, as `collect` records it and a `--root` tree's `.kube-rdma/commands.json` holds it. */
const commandOutcome = {
  type: "object",
  required: ["command", "exitCode", "stdout", "stderr"],
  properties: {
    command: shortText,
    exitCode: { anyOf: [{ type: "integer", minimum: -(2 ** 31), maximum: 2 ** 31 }, { type: "null" }] },
    stdout: capture,
    stderr: capture,
    error: readError,
    durationMs: { type: "number", minimum: 0, maximum: 86_400_000 },
    ranFrom: shortText,
  },
  // A command that never ran to completion (no exit code) says why.
  if: { required: ["exitCode"], properties: { exitCode: { type: "null" } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
  then: { required: ["error"], properties: { error: readError } },
} as const;

/** The command captures of a `--root` tree: `{"ofed_info -s": CommandOutcome, …}`. */
export const COMMANDS_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "kube-rdma command captures",
  ...table(commandOutcome),
  maxProperties: 1024,
} as const;

/** A kube-rdma snapshot, versions 1, 2 and 3. */
export const SNAPSHOT_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "kube-rdma snapshot",
  description:
    "What `kube-rdma collect` writes and `--snapshot FILE` / `fleet verify` read. Generated from src/host/snapshot-schema.ts.",
  type: "object",
  required: ["kind", "schemaVersion", "host", "files", "dirs", "links", "errors", "fsSizes", "commands"],
  properties: {
    kind: { const: "kube-rdma/snapshot" },
    schemaVersion: { enum: [1, 2, 3] },
    host: { type: "string", maxLength: 253 },
    collectedAt: shortText,
    tool: shortText,
    root: shortText,
    files: table(fileText),
    fileGroups: table(table(fileText)),
    fileRuns: {
      type: "array",
      maxItems: MAX_LISTING,
      items: {
        type: "object",
        required: ["dir", "from", "to", "text"],
        properties: { dir: shortText, from: runNumber, to: runNumber, text: fileText },
      },
    },
    dirs: table({ type: "array", maxItems: MAX_LISTING, items: { type: "string", maxLength: 255 } }),
    groupListings: { type: "array", maxItems: MAX_TABLE, items: shortText },
    dirRuns: table({
      type: "object",
      required: ["from", "to"],
      properties: { from: runNumber, to: runNumber },
    }),
    links: table(shortText),
    errors: table(readError),
    fsSizes: table({ type: "number", minimum: 0, maximum: 2 ** 53 }),
    commands: { ...table(commandOutcome), maxProperties: 1024 },
  },
} as const;

/** A bad value: where it is (`$.dirs["/sys/class/infiniband"]`) and what was expected there. */
export type SchemaProblem = { path: string; message: string };

let ajvInstance: import("ajv").default | undefined;
const compiled: { snapshot?: ValidateFunction; commands?: ValidateFunction } = {};

/** The one ajv instance, with the size cap below; loaded on the first validation. */
function ajv(): import("ajv").default {
  if (!ajvInstance) {
    const { _, Ajv, str } = loadAjv();
    // The schemas are this module's constants: checking them against the draft-07 meta-schema at every start would
    // cost more than compiling them (a test does it once: the meta-schema check beside this module's tests).
    ajvInstance = new Ajv({ allErrors: false, strict: true, validateSchema: false });
    // A cap counts UTF-16 units (String.length), not code points: ajv's own maxLength walks every string of every
    // snapshot to count code points, a fifth of a fleet node's validation time; as a size cap the two agree enough.
    ajvInstance.removeKeyword("maxLength");
    ajvInstance.addKeyword({
      keyword: "maxLength",
      type: "string",
      schemaType: "number",
      code(cxt: KeywordCxt) {
        cxt.fail(_`${cxt.data}.length > ${cxt.schema}`);
      },
      error: { message: ({ schema }) => str`must NOT have more than ${schema} characters` },
    });
  }
  return ajvInstance;
}

/**
 * Each schema compiled when first needed: a `--root` tree's captures need only the small commands schema, and
 * compiling the whole snapshot schema too would cost `verify --root` more than all its file reads.
 */
function validator(which: "snapshot" | "commands"): ValidateFunction {
  compiled[which] ??= ajv().compile(which === "snapshot" ? SNAPSHOT_SCHEMA : COMMANDS_SCHEMA);
  return compiled[which];
}

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
