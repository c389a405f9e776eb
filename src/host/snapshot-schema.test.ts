import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
import { schemaDocs } from "../../test/support/emit-schemas.js";
import { listExamples } from "../examples/index.js";
import { collectSnapshot } from "./snapshot.js";
import { SnapshotHostReader } from "./snapshot-reader.js";
import {
  COMMANDS_SCHEMA,
  commandsSchemaProblems,
  jsonPath,
  SNAPSHOT_SCHEMA,
  snapshotSchemaProblems,
} from "./snapshot-schema.js";

describe("the snapshot schema", () => {
  test("docs/ holds the schemas as the code defines them (npm run schema rewrites them)", () => {
    for (const [path, text] of Object.entries(schemaDocs())) {
      expect(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"), path).toBe(text);
    }
  });

  test("both schemas are valid draft-07 schemas (the meta-schema check the CLI skips at start)", () => {
    // https://json-schema.org/draft-07/schema: ajv ships this meta-schema and checks a schema against it.
    const { Ajv } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    const ajv = new Ajv({ strict: true });
    for (const schema of [SNAPSHOT_SCHEMA, COMMANDS_SCHEMA]) {
      expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    }
    // A damaged schema is caught by the same check (not a test that passes whatever it is given).
    expect(ajv.validateSchema({ ...COMMANDS_SCHEMA, maxProperties: -1 })).toBe(false);
  });

  test("every example, as recorded and as collect writes it, is a valid snapshot", async () => {
    for (const ex of listExamples()) {
      const snap = ex.snapshot();
      expect(snapshotSchemaProblems(snap), ex.name).toEqual([]);
      const collected = await collectSnapshot(new SnapshotHostReader(snap));
      expect(snapshotSchemaProblems(JSON.parse(JSON.stringify(collected))), ex.name).toEqual([]);
    }
  });

  test("a capture file whose command has no exit code → the path of the missing value", () => {
    const cmd = { command: "ofed_info -s", stdout: "MLNX_OFED_LINUX-5.8-1.1.2.1:\n", stderr: "" };
    expect(commandsSchemaProblems({ "ofed_info -s": cmd })).toEqual([
      { path: '$["ofed_info -s"].exitCode', message: "missing" },
    ]);
    expect(commandsSchemaProblems({ "ofed_info -s": { ...cmd, exitCode: 0 } })).toEqual([]);
  });

  test("JSON paths read the way a person writes them", () => {
    expect(jsonPath(["dirs", "/sys/class/net"])).toBe('$.dirs["/sys/class/net"]');
    expect(jsonPath(["fileRuns", "3", "to"])).toBe("$.fileRuns[3].to");
  });
});

test("a command with no exit code and no error saying why is refused (a capture never leaves a failure unexplained)", () => {
  const cmd = { command: "nvidia-smi -q -x", exitCode: null, stdout: "", stderr: "" };
  expect(commandsSchemaProblems({ "nvidia-smi -q -x": cmd })).toEqual([
    { path: '$["nvidia-smi -q -x"].error', message: "missing" },
  ]);
  const timedOut = { ...cmd, error: { code: "ETIMEDOUT", message: "nvidia-smi -q -x: no answer within 15 s" } };
  expect(commandsSchemaProblems({ "nvidia-smi -q -x": timedOut })).toEqual([]);
});
