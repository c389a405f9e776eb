/**
 * `fleet verify --vm-host yes|no`: whether the nodes pass PCI devices to VMs is not visible on a host and decides the
 * PCIe ACS fix (NCCL troubleshooting: on VMs keep ACS and enable ATS,
 * https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html); the answer reaches every node's
 * checks, in this thread and in the analysis workers alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { exampleSnapshot } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function savedAcsNodes(): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-vmhost-"));
  dirs.push(dir);
  for (const node of ["gpu-01", "gpu-02"]) {
    writeFileSync(join(dir, `${node}.json`), `${JSON.stringify(exampleSnapshot("acs-redirect"))}\n`);
  }
  return dir;
}

async function acsFixes(...more: string[]): Promise<string[]> {
  const io = captureIo();
  io.env = { KUBECONFIG: "/nonexistent/kubeconfig" };
  await main(["fleet", "verify", "--from-snapshots", savedAcsNodes(), "-o", "json", ...more], io);
  const out = JSON.parse(io.out) as { nodes: { findings?: { code: string; fix: string }[] }[] };
  return out.nodes.flatMap((n) => (n.findings ?? []).filter((f) => f.code === "PCIE_ACS_REDIRECT").map((f) => f.fix));
}

describe("fleet verify --vm-host", () => {
  test.each([["0"], ["2"]])("--analysis-threads %s: yes keeps ACS on every node, no disables it", async (threads) => {
    const vm = await acsFixes("--vm-host", "yes", "--analysis-threads", threads);
    expect(vm).toHaveLength(2);
    for (const fix of vm) {
      expect(fix).toMatch(/keep ACS/);
      expect(fix).not.toMatch(/setpci/);
    }
    const bare = await acsFixes("--vm-host", "no", "--analysis-threads", threads);
    expect(bare).toHaveLength(2);
    for (const fix of bare) expect(fix).toMatch(/setpci/);
  });

  test("unset: both fixes and the question", async () => {
    const fixes = await acsFixes();
    expect(fixes).toHaveLength(2);
    for (const fix of fixes) expect(fix).toMatch(/--vm-host yes\|no/);
  });
});
