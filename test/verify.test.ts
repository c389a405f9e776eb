import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { VERIFY_REPORT_SCHEMA } from "../src/checks/testing/verify-schema.js";
import { main } from "../src/cli/main.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { captureIo } from "./support/io.js";

describe("kube-rdma verify", () => {
  test("on the seed example prints the node summary and PASS, exit 0", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "a100-8x-roce"], io)).toBe(0);
    expect(io.out).toMatch(/Management\s+mlx5_0 on eth0 \(default route\), 25 Gb\/s/);
    expect(io.out).toMatch(/Data NICs\s+8: mlx5_1\.\.mlx5_8 on eth1\.\.eth8, RoCE, 200 Gb\/s/);
    expect(io.out).toMatch(/GID index\s+RoCE v2 IPv4 at index 3 on every data HCA/);
    expect(io.out).toMatch(/\nPASS: 0 error\(s\), 0 warning\(s\), 0 info; node cce-a100-roce-01\n$/);
  });

  test("-o json on the seed follows the design contract", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "a100-8x-roce", "-o", "json"], io)).toBe(0);
    const report = JSON.parse(io.out);
    const validate = new Ajv({ strict: false }).compile(VERIFY_REPORT_SCHEMA);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report).toMatchObject({
      schemaVersion: 1,
      host: report.inventory.hostname,
      findings: [],
      summary: { status: "pass", errors: 0, warnings: 0 },
    });
    expect(report.inventory.roles).toMatchObject({ managementHca: "mlx5_0", defaultRouteInterface: "eth0" });
  });

  test("a variation with a warning exits 0 (1 with --strict) and names the HCA and the fix", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "gid-index-5"], io)).toBe(0);
    expect(await main(["verify", "--example", "gid-index-5", "--strict"], captureIo())).toBe(1);
    expect(io.out).toMatch(/GID_INDEX_DIFFERS\s+mlx5_5/);
    expect(io.out).toMatch(/GID index\s+3 on mlx5_1\.\.mlx5_4, mlx5_6\.\.mlx5_8; 5 on mlx5_5/);
    expect(io.out).toMatch(/fix: Make the address layout uniform/);
  });

  test("an IPv6-only RoCE fabric passes, and the summary reads its GID index off the IPv6 GIDs", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "ipv6-only"], io)).toBe(0);
    expect(io.out).toMatch(/GID index\s+RoCE v2 IPv6 \(no IPv4 address\) at index 3 on every data HCA/);
  });

  test("warnings pass (exit 0) unless --strict (exit 1)", async () => {
    expect(await main(["verify", "--example", "fw-mismatch"], captureIo())).toBe(0);
    expect(await main(["verify", "--example", "fw-mismatch", "--strict"], captureIo())).toBe(1);
  });

  test("--pod judges the container limits; --shm-min changes the bar", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "pod-restricted", "--pod", "-o", "json"], io)).toBe(1);
    const codes = JSON.parse(io.out).findings.map((f: { code: string }) => f.code);
    expect(codes).toEqual(["MEMLOCK_LIMITED", "NO_IPC_LOCK", "SHM_SMALL"]);
    const small = captureIo();
    await main(["verify", "--example", "pod-restricted", "--pod", "--shm-min", "32Mi", "-o", "json"], small);
    expect(JSON.parse(small.out).findings.map((f: { code: string }) => f.code)).not.toContain("SHM_SMALL");
  });

  test("verify on facts that look like a pod, without --pod: exit 0, but an info says the pod checks were skipped and how to run them", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "pod-restricted", "-o", "json"], io)).toBe(0);
    const findings = JSON.parse(io.out).findings as { code: string; severity: string; fix: string }[];
    const skipped = findings.find((f) => f.code === "POD_CHECKS_SKIPPED");
    expect(skipped).toMatchObject({ severity: "info" });
    expect(skipped!.fix).toContain("kube-rdma verify --pod");
    const host = captureIo();
    await main(["verify", "--example", "a100-8x-roce", "-o", "json"], host);
    expect(JSON.parse(host.out).findings.map((f: { code: string }) => f.code)).not.toContain("POD_CHECKS_SKIPPED");
  });

  test("--expect-gpus and --expect-gpu-model are checked against nvidia-smi", async () => {
    const io = captureIo();
    const argv = ["verify", "--example", "a100-8x-roce", "--expect-gpus", "16", "--expect-gpu-model", "H100"];
    expect(await main(argv, io)).toBe(1);
    expect(io.out).toMatch(/GPU_COUNT\s+GPUs\s+nvidia-smi lists 8 GPU\(s\), expected 16/);
    expect(io.out).toMatch(/GPU_MODEL\s+GPU0/);
  });

  test("bad usage exits 2 with a clear message, never a stack trace", async () => {
    const cases: [string[], RegExp][] = [
      [["verify", "--example", "no-such-host"], /unknown example "no-such-host"/],
      [["verify", "--example", "a100-8x-roce", "--shm-min", "huge"], /--shm-min expects a size/],
      [["verify", "--example", "a100-8x-roce", "--expect-gpus", "eight"], /--expect-gpus expects a number/],
      [["verify", "--root", "/no/such/dir"], /no such directory/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await main(argv, io)).toBe(2);
      expect(io.err).toMatch(message);
      expect(io.err).not.toMatch(/\n\s+at /);
    }
  });

  test("-o yaml renders the same report", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "no-ofed", "-o", "yaml"], io)).toBe(1);
    expect(io.out).toMatch(/^schemaVersion: 1\n/);
    expect(io.out).toMatch(/code: OFED_ABSENT/);
  });

  test("--help teaches: checks, exit codes, examples", async () => {
    const io = captureIo();
    expect(await main(["verify", "--help"], io)).toBe(0);
    expect(io.out).toMatch(/--expect-gpus N/);
    expect(io.out).toMatch(/Exit codes: 0 no errors/);
    expect(io.out).toMatch(/kube-rdma verify --example a100-8x-roce/);
  });
});

describe("verify --watch SECONDS", () => {
  test("port-flapping read twice: mlx5_6 lost its link twice in between → PORT_FLAPPING error, exit 1", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "port-flapping", "--watch", "0.01", "-o", "json"], io)).toBe(1);
    const flap = JSON.parse(io.out).findings.find((f: { code: string }) => f.code === "PORT_FLAPPING");
    expect(flap).toMatchObject({ subject: "mlx5_6", severity: "error", evidence: { linkDowned: 2 } });
  });

  test("the seed read twice does not flap and passes", async () => {
    const io = captureIo();
    expect(await main(["verify", "--example", "a100-8x-roce", "--watch", "0.01"], io)).toBe(0);
    expect(io.out).not.toMatch(/PORT_FLAPPING/);
  });

  test("a snapshot never changes: --watch on it is a usage error (exit 2) saying where to run it", async () => {
    const io = captureIo();
    expect(await main(["verify", "--snapshot", "node.json", "--watch", "5"], io)).toBe(2);
    expect(io.err).toMatch(/snapshot never changes/);
  });
});

describe("verify on the same host from every source", () => {
  // acs-redirect: the bridges' config space travels as hex in the snapshot and as bytes in the --root tree.
  test.each(["a100-8x-roce", "gid-index-5", "pod-restricted", "acs-redirect"])(
    "%s: --example, a collected --snapshot and the example's tree as --root give identical findings",
    async (example) => {
      const dir = mkdtempSync(join(tmpdir(), "kube-rdma-verify-"));
      try {
        const snapshotFile = join(dir, "node.json");
        expect(await main(["collect", "--example", example, "-o", snapshotFile], captureIo())).toBe(0);
        // The example's own snapshot: a collected one lists /dev/infiniband without the char devices as files.
        materializeSnapshot(findExample(example)!.snapshot(), join(dir, "root"));
        const findingsFrom = async (source: string[]) => {
          const io = captureIo();
          await main(["verify", ...source, "--pod", "-o", "json"], io);
          return JSON.parse(io.out).findings;
        };
        const fromExample = await findingsFrom(["--example", example]);
        expect(await findingsFrom(["--snapshot", snapshotFile])).toEqual(fromExample);
        expect(await findingsFrom(["--root", join(dir, "root")])).toEqual(fromExample);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
