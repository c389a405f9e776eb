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
    expect(await main(["device-plugin", "--config", cfg, "--inject-nccl-env=false"], io)).toBe(2);
    expect(io.err).toContain('unknown key "ifNames"');
    expect(io.err).toContain("allowed keys: names, excludeNames");
  });

  test("a missing plugin dir: exit 2 with the dir and the fix, no stack trace", async () => {
    const io = captureIo();
    const code = await main(
      ["device-plugin", "--plugin-dir", "/nonexistent/kubelet/device-plugins", "--inject-nccl-env=false"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err).toContain("/nonexistent/kubelet/device-plugins does not exist");
    expect(io.err).toContain("--plugin-dir");
    expect(io.err).not.toMatch(/\n\s+at /);
  });

  test("bad flag values are usage errors naming the flag", async () => {
    for (const [args, words] of [
      [["--shared-units", "0"], "--shared-units"],
      [["--resource", "hca"], "--resource expects"],
      [["--metrics-addr", "nope"], "--metrics-addr"],
      [["--mode", "both"], "--mode must be one of shared, exclusive"],
    ] as const) {
      const io = captureIo();
      expect(await main(["device-plugin", ...args, "--inject-nccl-env=false"], io)).toBe(2);
      expect(io.err).toContain(words);
    }
  });
});
