/**
 * `agent --vm-host yes|no`: whether the node passes PCI devices to VMs is not visible on a host, and decides the
 * PCIe ACS fix (NCCL troubleshooting: on VMs keep ACS and enable ATS,
 * https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html). The agent's report says the same
 * fix `verify --vm-host` gives.
 */
import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";

async function acsFix(...more: string[]): Promise<{ code: number; fix: string }> {
  const io = captureIo();
  const code = await main(
    ["agent", "--once", "--dry-run", "--example", "acs-redirect", "--node-name", "gpu-n1", "-o", "json", ...more],
    io,
  );
  const text = JSON.stringify(JSON.parse(io.out));
  const m = /"code":"PCIE_ACS_REDIRECT"[^}]*?"fix":"((?:[^"\\]|\\.)*)"/.exec(text);
  return { code, fix: m ? JSON.parse(`"${m[1]}"`) : "" };
}

describe("agent --vm-host", () => {
  test("yes: keep ACS and enable ATS; no: disable ACS; unset: both, and the question", async () => {
    const vm = await acsFix("--vm-host", "yes");
    expect(vm.fix).toMatch(/keep ACS/);
    expect(vm.fix).not.toMatch(/setpci/);
    expect((await acsFix("--vm-host", "no")).fix).toMatch(/setpci -s 0000:6a:01.0/);
    expect((await acsFix()).fix).toMatch(/--vm-host yes\|no/);
  });

  test("a value other than yes or no is a usage error (exit 2)", async () => {
    const io = captureIo();
    const code = await main(
      ["agent", "--once", "--dry-run", "--example", "acs-redirect", "--node-name", "n1", "--vm-host", "maybe"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err).toMatch(/vm-host/);
  });
});
