/**
 * The snapshot schemas as data (what every snapshot and every `--root` tree's command captures must be): every table,
 * every value's type, size and range bounded. The one source of truth for the checks of src/host/snapshot-validators.ts
 * (compiled by ajv at run time from source, and ahead of time by `npm run build` for the built CLI) and for
 * `docs/snapshot.schema.json` (`npm run schema`).
 */
import { MAX_LISTING } from "./limits.js";

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
