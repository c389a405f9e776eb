/**
 * The checks the build compiles ahead of time (ajv's standalone code) against ajv compiling the same schemas here and
 * now: on valid and damaged documents both say the same (valid or not, and the same first error, which is what the
 * user's message is made of). Standalone code: https://ajv.js.org/standalone.html
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { COMMANDS_SCHEMA, SNAPSHOT_SCHEMA } from "./snapshot-schema-defs.js";
import type { SchemaName } from "./snapshot-validators.js";
import { schemaAjv, standaloneValidators } from "./snapshot-validators.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-validators-"));
let generated: { validator: (which: SchemaName) => ValidateFunction };
const runtime = schemaAjv();
const compiled = { snapshot: runtime.compile(SNAPSHOT_SCHEMA), commands: runtime.compile(COMMANDS_SCHEMA) };

beforeAll(async () => {
  const file = join(dir, "validators.mjs");
  writeFileSync(file, standaloneValidators());
  generated = await import(pathToFileURL(file).href);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function verdicts(which: SchemaName, doc: unknown): { ahead: unknown; now: unknown } {
  const ahead = generated.validator(which);
  const now = compiled[which];
  const a = ahead(doc);
  const n = now(doc);
  return { ahead: { valid: a, errors: a ? null : ahead.errors }, now: { valid: n, errors: n ? null : now.errors } };
}

type Snap = Record<string, unknown> & { commands: Record<string, Record<string, unknown>> };
const snapshot = (): Snap => JSON.parse(JSON.stringify(findExample("a100-8x-roce")!.snapshot()));
const outcome = { command: "ibstat", exitCode: 0, stdout: "CA 'mlx5_0'\n", stderr: "" };

const SNAPSHOTS: [string, (s: Snap) => unknown][] = [
  ["the example as recorded", (s) => s],
  ["with a run of numbered files", (s) => ({ ...s, fileRuns: [{ dir: "/sys/x", from: 0, to: 3, text: "0\n" }] })],
  ["no kind", ({ kind: _, ...rest }) => rest],
  ["a future schema version", (s) => ({ ...s, schemaVersion: 9 })],
  ["a host name past 253 characters", (s) => ({ ...s, host: "n".repeat(254) })],
  ["a file whose text is a number", (s) => ({ ...s, files: { "/sys/class/net/eth0/mtu": 9000 } })],
  ["a listing that is not a list", (s) => ({ ...s, dirs: { "/sys/class/infiniband": "mlx5_0" } })],
  ["a run number past the cap", (s) => ({ ...s, dirRuns: { "/sys/x": { from: 0, to: 5000 } } })],
  ["a path name past the cap", (s) => ({ ...s, links: { ["/".repeat(4097)]: "/x" } })],
  ["a negative file-system size", (s) => ({ ...s, fsSizes: { "/": -1 } })],
  ["a command with no exit code and no error", (s) => ({ ...s, commands: { x: { ...outcome, exitCode: null } } })],
  ["not an object at all", () => [1, 2]],
];

const CAPTURES: [string, unknown][] = [
  ["one command", { ibstat: outcome }],
  [
    "a command that could not start, with its error",
    { x: { ...outcome, exitCode: null, error: { code: "ENOENT", message: "not found" } } },
  ],
  ["none", {}],
  ["an exit code that is text", { ibstat: { ...outcome, exitCode: "0" } }],
  ["no stdout", { ibstat: { command: "ibstat", exitCode: 0, stderr: "" } }],
  [
    "an error whose code is too long",
    { x: { ...outcome, exitCode: null, error: { code: "E".repeat(65), message: "" } } },
  ],
  ["a duration past a day", { ibstat: { ...outcome, durationMs: 86_400_001 } }],
  ["a list instead of a table", [outcome]],
];

describe("the snapshot checks compiled by the build agree with ajv compiling the same schemas", () => {
  test.each(SNAPSHOTS)("snapshot: %s", (_name, make) => {
    const { ahead, now } = verdicts("snapshot", make(snapshot()));
    expect(ahead).toEqual(now);
  });

  test.each(CAPTURES)("command captures: %s", (_name, doc) => {
    const { ahead, now } = verdicts("commands", doc);
    expect(ahead).toEqual(now);
  });

  test("the documents above hold both verdicts (valid ones and damaged ones)", () => {
    const valid = (which: SchemaName, d: unknown) => compiled[which](d);
    const snaps = SNAPSHOTS.map(([, make]) => valid("snapshot", make(snapshot())));
    const caps = CAPTURES.map(([, d]) => valid("commands", d));
    expect(snaps.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(snaps.filter((v) => !v).length).toBeGreaterThanOrEqual(5);
    expect(caps.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(caps.filter((v) => !v).length).toBeGreaterThanOrEqual(5);
  });
});
