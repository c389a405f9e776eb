import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseSnapshotLog } from "./snapshot-log.js";

describe("a collector's log", () => {
  const snapshot = {
    kind: "kube-rdma/snapshot",
    schemaVersion: 1,
    host: "gpu-1",
    collectedAt: "2026-12-02T10:00:00.000Z",
    tool: "kube-rdma 0.1.0",
    root: "/host",
    files: { "/sys/class/infiniband/mlx5_1/ports/1/state": "4: ACTIVE\n" },
    dirs: {},
    links: {},
    errors: {},
    fsSizes: {},
    commands: {},
  };

  test("with the snapshot JSON (also after a warning line) → the snapshot", () => {
    const text = JSON.stringify(snapshot);
    expect(parseSnapshotLog(text, "gpu-1")).toMatchObject({ ok: true, value: { host: "gpu-1" } });
    expect(parseSnapshotLog(`W1202 warning: slow nvidia-smi\n${text}\n`, "gpu-1").ok).toBe(true);
  });

  test("JSON of another kind, or an error message → a problem naming the node", () => {
    const other = parseSnapshotLog(JSON.stringify({ kind: "Status" }), "gpu-2");
    expect(other).toMatchObject({ ok: false, problems: [{ code: "snapshot.invalid", path: "$.kind" }] });
    const none = parseSnapshotLog("exec format error\n", "gpu-3");
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.problems[0]!.message).toMatch(/collector pod on gpu-3 printed no snapshot JSON/);
  });

  test("a log cut inside the snapshot (the collector killed mid-write) says so, with its length, not the parser's 'Expected a comma after property value'", () => {
    const text = JSON.stringify(snapshot);
    const cut = text.slice(0, text.indexOf('"dirs"')); // ends after the files table's closing brace
    const r = parseSnapshotLog(cut, "gpu-6");
    expect(r).toMatchObject({ ok: false, problems: [{ code: "snapshot.invalid", path: "$" }] });
    if (!r.ok) {
      expect(r.problems[0]!.message).toBe(
        `$: the log ends mid-snapshot after ${cut.length} bytes (the collector was killed while writing, or its log was cut)`,
      );
    }
  });

  test("a snapshot from a newer collector image → a problem naming the node, its version and the fix", () => {
    const r = parseSnapshotLog(JSON.stringify({ ...snapshot, schemaVersion: 4 }), "gpu-4");
    expect(r).toMatchObject({ ok: false, problems: [{ code: "snapshot.invalid", path: "$.schemaVersion" }] });
    if (!r.ok) {
      expect(r.problems[0]!.message).toMatch(/schemaVersion 4; this kube-rdma reads 1, 2 and 3/);
      expect(r.problems[0]!.message).toMatch(/collector image of the same version/);
    }
  });

  test("a snapshot without its dirs table → a problem naming the table (the reader would fail on it)", () => {
    const { dirs: _dirs, ...damaged } = snapshot;
    const r = parseSnapshotLog(JSON.stringify(damaged), "gpu-5");
    expect(r).toMatchObject({
      ok: false,
      problems: [{ code: "snapshot.invalid", path: "$.dirs", message: "$.dirs: missing" }],
    });
  });

  test("wrong types deep inside, a huge range, a truncated log → the JSON path of the bad value", () => {
    const bad = (patch: object) => parseSnapshotLog(JSON.stringify({ ...snapshot, ...patch }), "gpu-6");
    expect(bad({ dirs: { "/sys/class/infiniband": 5 } })).toMatchObject({
      problems: [
        { path: '$.dirs["/sys/class/infiniband"]', message: '$.dirs["/sys/class/infiniband"]: expected array' },
      ],
    });
    const cmd = { command: "ofed_info -s", exitCode: 0, stdout: 5, stderr: "" };
    expect(bad({ commands: { "ofed_info -s": cmd } })).toMatchObject({
      problems: [
        { path: '$.commands["ofed_info -s"].stdout', message: '$.commands["ofed_info -s"].stdout: expected string' },
      ],
    });
    expect(bad({ errors: { "/sys/x": null } })).toMatchObject({ problems: [{ path: '$.errors["/sys/x"]' }] });
    expect(bad({ dirRuns: { "/sys/g": { from: 0, to: 2 ** 31 } } })).toMatchObject({
      problems: [{ path: '$.dirRuns["/sys/g"].to', message: '$.dirRuns["/sys/g"].to: out of range (at most 4095)' }],
    });
    expect(bad({ dirRuns: { "/sys/g": { from: 9, to: 2 } } })).toMatchObject({
      problems: [{ path: '$.dirRuns["/sys/g"]', message: '$.dirRuns["/sys/g"]: the run goes backwards (from 9 to 2)' }],
    });
    expect(parseSnapshotLog(JSON.stringify(snapshot).slice(0, 90), "gpu-6")).toMatchObject({
      problems: [{ code: "snapshot.invalid", path: "$" }],
    });
  });

  test("garbage and truncated logs give problems, never a throw", () => {
    const text = JSON.stringify(snapshot);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.nat(text.length), (junk, cut) => {
        expect(typeof parseSnapshotLog(junk, "n").ok).toBe("boolean");
        expect(typeof parseSnapshotLog(text.slice(0, cut) + junk, "n").ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});
