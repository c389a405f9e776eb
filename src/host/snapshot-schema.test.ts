import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { schemaDocs } from "../../test/support/emit-schemas.js";
import { listExamples } from "../examples/index.js";
import { collectSnapshot } from "./snapshot.js";
import { SnapshotHostReader } from "./snapshot-reader.js";
import { commandsSchemaProblems, jsonPath, snapshotSchemaProblems } from "./snapshot-schema.js";

describe("the snapshot schema", () => {
  test("docs/ holds the schemas as the code defines them (npm run schema rewrites them)", () => {
    for (const [path, text] of Object.entries(schemaDocs())) {
      expect(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"), path).toBe(text);
    }
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
