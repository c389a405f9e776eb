import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { MANIFEST_FILE } from "../../device-plugin/manifests.js";
import { main } from "../main.js";

const temps: string[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) await rm(t, { recursive: true, force: true });
});

describe("kube-rdma device-plugin", () => {
  test("--help teaches the modes, the env merge rule, health and the config keys", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--help"], io)).toBe(0);
    for (const word of [
      "--shared-units",
      "--mode",
      "exclusive",
      "--inject-nccl-env",
      "job sets itself always wins",
      "includeManagement",
      "--print-manifests",
    ]) {
      expect(io.out).toContain(word);
    }
  });

  test("--print-manifests prints exactly the deploy file", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--print-manifests"], io)).toBe(0);
    expect(io.out).toBe(await readFile(MANIFEST_FILE, "utf8"));
  });

  test("a config file with an unknown key: exit 2 and the key named with the allowed ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kube-rdma-cli-"));
    temps.push(dir);
    const cfg = join(dir, "hcas.yaml");
    await writeFile(cfg, "names: [mlx5_*]\nifNames: [eth1]\n");
    const io = captureIo();
    expect(await main(["device-plugin", "--config", cfg], io)).toBe(2);
    expect(io.err).toContain('unknown key "ifNames"');
    expect(io.err).toContain("allowed keys: names, excludeNames");
  });

  test("a missing plugin dir: exit 2 with the dir and the fix, no stack trace", async () => {
    const io = captureIo();
    const code = await main(
      ["device-plugin", "--example", "a100-8x-roce", "--plugin-dir", "/nonexistent/kubelet/device-plugins"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err).toContain("/nonexistent/kubelet/device-plugins does not exist");
    expect(io.err).toContain("--plugin-dir");
    expect(io.err).not.toMatch(/\n\s+at /);
  });

  test("--dry-run on the seed example: the 8 data HCAs, mlx5_0 left out, and NCCL_IB_HCA==mlx5_1..8 (JSON)", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "a100-8x-roce", "--dry-run", "-o", "json"], io)).toBe(0);
    const report = JSON.parse(io.out);
    expect(report.schemaVersion).toBe(1);
    expect(report.hcas.map((h: { name: string }) => h.name)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `mlx5_${i}`));
    expect(report.skipped[0].hca).toBe("mlx5_0");
    expect(report.devices.count).toBe(1000);
    expect(report.allocate.envs.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
  });

  test("--nccl-profile reference: Allocate hands out the platform's tuning too (NCCL_DEBUG=INFO, 8 QPs on InfiniBand)", async () => {
    const io = captureIo();
    const args = ["device-plugin", "--example", "ib-8x-hdr", "--dry-run", "--nccl-profile", "reference", "-o", "json"];
    expect(await main(args, io)).toBe(0);
    const { envs } = JSON.parse(io.out).allocate;
    expect(envs).toMatchObject({ NCCL_DEBUG: "INFO", NCCL_IB_QPS_PER_CONNECTION: "8", NCCL_IB_TIMEOUT: "22" });
    const derived = captureIo();
    expect(await main(["device-plugin", "--example", "ib-8x-hdr", "--dry-run", "-o", "json"], derived)).toBe(0);
    expect(JSON.parse(derived.out).allocate.envs.NCCL_IB_QPS_PER_CONNECTION).toBeUndefined();
  });

  test("bad flag values are usage errors naming the flag", async () => {
    for (const [args, words] of [
      [["--shared-units", "0"], "--shared-units"],
      [["--resource", "hca"], "--resource expects"],
      [["--metrics-addr", "nope"], "--metrics-addr"],
      [["--mode", "both"], "--mode must be one of shared, exclusive"],
      [["--refresh-interval", "-1"], "--refresh-interval"],
      // 1e9 s does not fit Node's 32-bit timer: it would fire every millisecond, polling sysfs non-stop.
      [["--health-interval", "1e9"], "--health-interval expects seconds from 0.1 to 3600; got 1000000000."],
      [["--health-interval", "0.001"], "--health-interval expects seconds from 0.1 to 3600"],
      [["--refresh-interval", "1e12"], "--refresh-interval expects seconds from 1 to 86400, or 0"],
      // Options the chosen mode would have dropped in silence.
      [
        ["--mode", "exclusive", "--shared-units", "5"],
        "--shared-units shapes shared mode; --mode exclusive advertises",
      ],
      [["--inject-nccl-env=false", "--nccl-version", "2.18"], "--inject-nccl-env=false injects none"],
      [["--nccl-version", "two"], "--nccl-version expects X.Y"],
      [["--nccl-profile", "fast"], "--nccl-profile must be one of derived, minimal, roce-ecmp, reference"],
      [["--inject-nccl-env=false", "--nccl-profile", "minimal"], "--inject-nccl-env=false injects none"],
      [["--config", "/nonexistent/hcas.yaml"], "cannot read the config file /nonexistent/hcas.yaml: ENOENT"],
    ] as const) {
      const io = captureIo();
      expect(await main(["device-plugin", ...args], io)).toBe(2);
      expect(io.err).toContain(words);
    }
  });
});
