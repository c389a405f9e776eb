/**
 * nvidia-smi run from the host's /usr/bin inside a fleet collector pod (NVIDIA_VISIBLE_DEVICES=void, no NVIDIA
 * runtime) usually cannot load libnvidia-ml.so or open /dev/nvidia*: that is a check that could not run, not a
 * driver that stopped answering. The failure texts below are written in the shapes real reports show (URLs in
 * src/inventory/smi-failure.ts); hosts and numbers are our own.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { collectSnapshot, openReader } from "../host/index.js";
import type { CommandOutcome, Snapshot } from "../host/types.js";

const SMI = "nvidia-smi -q -x";
const HOST_SMI = "/host/usr/bin/nvidia-smi";

const LIB_NOT_FOUND: Partial<CommandOutcome> = {
  exitCode: 12,
  stdout:
    "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.\n" +
    "Please also try adding directory that contains libnvidia-ml.so to your system PATH.\n",
};
const LOADER_127: Partial<CommandOutcome> = {
  exitCode: 127,
  stderr: `${HOST_SMI}: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n`,
};
const NVML_UNKNOWN: Partial<CommandOutcome> = { exitCode: 255, stdout: "Failed to initialize NVML: Unknown Error\n" };
const NO_DRIVER_CONTACT: Partial<CommandOutcome> = {
  exitCode: 9,
  stdout:
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n\n",
};
const DEVICE_HANDLE: Partial<CommandOutcome> = {
  exitCode: 255,
  stdout: "Unable to determine the device handle for GPU0000:4F:00.0: Unknown Error\n",
};

let base: Snapshot | undefined;
async function nodeWhereSmi(host: string, outcome: Partial<CommandOutcome>, ranFrom?: string): Promise<Snapshot> {
  base ??= await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
  const smi: CommandOutcome = {
    command: SMI,
    exitCode: null,
    stdout: "",
    stderr: "",
    ...outcome,
    ...(ranFrom ? { ranFrom } : {}),
  };
  return { ...base, host, commands: { ...base.commands, [SMI]: smi } };
}

type Finding = { code: string; severity: string; subject: string; message: string; fix: string };
type Report = { findings: Finding[]; inventory: { driver: Record<string, unknown> } };
async function verifySnapshot(snap: Snapshot): Promise<{ code: number; findings: Finding[]; report: Report }> {
  const file = join(mkdtempSync(join(tmpdir(), "kr-smi-")), "node.json");
  writeFileSync(file, JSON.stringify(snap));
  const io = captureIo();
  const code = await main(["verify", "--snapshot", file, "-o", "json"], io);
  const report = JSON.parse(io.out) as Report;
  return { code, findings: report.findings, report };
}

describe("verify --snapshot of a collector whose nvidia-smi could not run there", () => {
  test.each([
    ["could not find libnvidia-ml.so (exit 12)", LIB_NOT_FOUND],
    ["the loader could not load libnvidia-ml.so.1 (exit 127)", LOADER_127],
    ["NVML could not start (Failed to initialize NVML)", NVML_UNKNOWN],
    ["nvidia-smi could not reach the driver's device nodes", NO_DRIVER_CONTACT],
  ])(
    "%s → CHECK_SKIPPED on nvidia-smi with the fix, not DRIVER_NOT_RESPONDING; driver version from /proc",
    async (_, outcome) => {
      const { code, findings, report } = await verifySnapshot(await nodeWhereSmi("gpu-node-17", outcome, HOST_SMI));
      expect(findings.filter((f) => f.code === "DRIVER_NOT_RESPONDING")).toEqual([]);
      const skipped = findings.filter((f) => f.code === "CHECK_SKIPPED" && f.subject === "nvidia-smi");
      expect(skipped).toHaveLength(1);
      expect(skipped[0]!.severity).toBe("warning");
      expect(skipped[0]!.message).toMatch(/nvidia-smi/);
      expect(skipped[0]!.message).toMatch(/libnvidia-ml\.so|NVIDIA devices/);
      expect(skipped[0]!.message).toMatch(/driver 470\.141\.03 is loaded/);
      expect(skipped[0]!.fix).toMatch(/NVIDIA container runtime/);
      expect(skipped[0]!.fix).toMatch(/on the node itself/);
      expect(report.inventory.driver).toMatchObject({ status: "unavailable", driverVersion: "470.141.03" });
      expect(findings.filter((f) => f.severity === "error")).toEqual([]);
      expect(code).toBe(0);
    },
  );

  test("the same loader failure in a snapshot taken without --host-commands is still a check that could not run", async () => {
    const { findings } = await verifySnapshot(await nodeWhereSmi("gpu-node-18", LOADER_127));
    expect(findings.map((f) => f.code)).toContain("CHECK_SKIPPED");
    expect(findings.map((f) => f.code)).not.toContain("DRIVER_NOT_RESPONDING");
  });
});

describe("no nvidia-smi where it was looked for", () => {
  const notFound = (file: string): Partial<CommandOutcome> => ({
    exitCode: null,
    error: { code: "ENOENT", message: `${SMI}: not installed (${file} not found on PATH)` },
  });

  test("a GPU-operator node (nvidia-smi in the driver container, not /usr/bin) whose module /proc shows loaded → CHECK_SKIPPED, not DRIVER_ABSENT", async () => {
    const { code, findings, report } = await verifySnapshot(
      await nodeWhereSmi("gpu-node-22", notFound(HOST_SMI), HOST_SMI),
    );
    expect(findings.map((f) => f.code)).not.toContain("DRIVER_ABSENT");
    const skipped = findings.find((f) => f.code === "CHECK_SKIPPED" && f.subject === "nvidia-smi");
    expect(skipped?.severity).toBe("warning");
    expect(skipped?.message).toMatch(/not installed \(\/host\/usr\/bin\/nvidia-smi not found/);
    expect(skipped?.message).toMatch(/driver 470\.141\.03 is loaded/);
    expect(skipped?.fix).toMatch(/\/run\/nvidia\/driver\/usr\/bin/);
    expect(report.inventory.driver).toMatchObject({ status: "unavailable", driverVersion: "470.141.03" });
    expect(code).toBe(0);
  });

  test("no nvidia-smi and no NVIDIA module in /proc → absent (DRIVER_ABSENT); with the module loaded → unavailable", async () => {
    const { buildDriver } = await import("./build-gpus.js");
    const o = { command: SMI, exitCode: null, stdout: "", stderr: "", ...notFound("nvidia-smi") } as CommandOutcome;
    expect(buildDriver({ problems: [] } as never, o, null).driver).toMatchObject({ status: "absent" });
    const proc = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:13 UTC 2024\n";
    expect(buildDriver({ problems: [] } as never, o, proc).driver).toMatchObject({
      status: "unavailable",
      driverVersion: "535.161.08",
    });
  });
});

describe("a driver that really does not answer stays an error", () => {
  test("on the node itself, nvidia-smi that cannot reach the driver → DRIVER_NOT_RESPONDING (exit 1)", async () => {
    const { code, findings } = await verifySnapshot(await nodeWhereSmi("gpu-node-19", NO_DRIVER_CONTACT));
    const f = findings.find((x) => x.code === "DRIVER_NOT_RESPONDING");
    expect(f).toMatchObject({ severity: "error", subject: "nvidia-smi" });
    expect(f!.message).toMatch(/couldn't communicate with the NVIDIA driver/);
    expect(code).toBe(1);
  });

  test("in a collector, a GPU whose device handle NVML cannot get → DRIVER_NOT_RESPONDING", async () => {
    const { code, findings } = await verifySnapshot(await nodeWhereSmi("gpu-node-20", DEVICE_HANDLE, HOST_SMI));
    expect(findings.find((x) => x.code === "DRIVER_NOT_RESPONDING")?.message).toMatch(/device handle/);
    expect(findings.filter((x) => x.code === "CHECK_SKIPPED" && x.subject === "nvidia-smi")).toEqual([]);
    expect(code).toBe(1);
  });

  test("in a collector, nvidia-smi that hangs until killed → DRIVER_NOT_RESPONDING (timeout)", async () => {
    const hung = { exitCode: null, error: { code: "ETIMEDOUT", message: "nvidia-smi killed after 15 s" } };
    const { findings } = await verifySnapshot(await nodeWhereSmi("gpu-node-21", hung, HOST_SMI));
    expect(findings.find((x) => x.code === "DRIVER_NOT_RESPONDING")?.message).toMatch(/did not answer in time/);
  });
});

describe("collect --host-commands records where the binary came from", () => {
  test("the host's nvidia-smi that cannot load its library, run from DIR: kept as `nvidia-smi -q -x`, ranFrom DIR/nvidia-smi, unavailable", async () => {
    const { chmodSync, mkdirSync } = await import("node:fs");
    const { buildDriver } = await import("./build-gpus.js");
    const dir = mkdtempSync(join(tmpdir(), "kr-hostbin-"));
    const bin = join(dir, "usr-bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "nvidia-smi"),
      `#!/bin/sh\necho "$0: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory" >&2\nexit 127\n`,
    );
    chmodSync(join(bin, "nvidia-smi"), 0o755);
    const reader = await openReader({ root: dir, commandDir: bin });
    const o = await reader.run("nvidia-smi", ["-q", "-x"]);
    expect(o).toMatchObject({ command: SMI, exitCode: 127, ranFrom: join(bin, "nvidia-smi") });
    const problems: unknown[] = [];
    const smi = buildDriver(
      { problems } as never,
      o,
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:13 UTC 2024\n",
    );
    expect(smi.driver).toMatchObject({ status: "unavailable", driverVersion: "535.161.08" });
    expect(smi.driver.error).toMatch(/could not load libnvidia-ml\.so here \(exit 127\)/);
  });
});

describe("the text report", () => {
  test("says nvidia-smi was unavailable and which driver /proc shows loaded", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "kr-smi-")), "node.json");
    writeFileSync(file, JSON.stringify(await nodeWhereSmi("gpu-node-22", LIB_NOT_FOUND, HOST_SMI)));
    const io = captureIo();
    await main(["verify", "--snapshot", file], io);
    expect(io.out).toMatch(/nvidia-smi unavailable \(driver 470\.141\.03 loaded\)/);
    expect(io.out).toMatch(/CHECK_SKIPPED/);
  });
});

describe("the GPUs named by the kernel module where nvidia-smi cannot run", () => {
  async function verifyWith(snap: Snapshot, ...args: string[]) {
    const file = join(mkdtempSync(join(tmpdir(), "kr-smi-")), "node.json");
    writeFileSync(file, JSON.stringify(snap));
    const io = captureIo();
    const code = await main(["verify", "--snapshot", file, "-o", "json", ...args], io);
    return { code, report: JSON.parse(io.out) as Report & { inventory: { gpus: Record<string, unknown>[] } } };
  }

  test("a collector pod without the NVIDIA runtime still sees 8 × A100 by name (/proc/driver/nvidia/gpus): the model is judged", async () => {
    const snap = await nodeWhereSmi("gpu-node-23", LIB_NOT_FOUND, HOST_SMI);
    const ok = await verifyWith(snap, "--expect-gpus", "8", "--expect-gpu-model", "A100");
    expect(ok.report.inventory.gpus).toHaveLength(8);
    for (const g of ok.report.inventory.gpus) {
      expect(g).toMatchObject({ name: "NVIDIA A100-SXM4-80GB", nameFrom: "driver" });
      expect(g.uuid).toMatch(/^GPU-[0-9a-f-]+$/);
    }
    expect(ok.report.findings.map((f) => f.code)).toEqual(["CHECK_SKIPPED"]);
    const wrong = await verifyWith(snap, "--expect-gpu-model", "H100");
    const model = wrong.report.findings.filter((f) => f.code === "GPU_MODEL");
    expect(model.map((f) => f.subject)).toEqual(["GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7"]);
    expect(wrong.code).toBe(1);
  });

  test("a snapshot without the driver's /proc GPU files keeps PCI placeholders, says why, and does not judge the model", async () => {
    const snap = structuredClone(await nodeWhereSmi("gpu-node-24", LIB_NOT_FOUND, HOST_SMI));
    for (const dir of Object.keys(snap.fileGroups ?? {})) {
      if (dir.startsWith("/proc/driver/nvidia/gpus/")) delete snap.fileGroups![dir];
    }
    for (const path of Object.keys(snap.files))
      if (path.startsWith("/proc/driver/nvidia/gpus/")) delete snap.files[path];
    const { report } = await verifyWith(snap, "--expect-gpu-model", "H100");
    expect(report.inventory.gpus[0]).toMatchObject({
      name: "NVIDIA GPU (PCI device 0x20b2; nvidia-smi could not run here)",
      nameFrom: "pci",
    });
    expect(report.findings.map((f) => f.code)).not.toContain("GPU_MODEL");
  });
});

describe("a GPU the NVIDIA driver excludes (NVreg_ExcludedGpus)", () => {
  test("GPU7 excluded: nvidia-smi lists 7, /proc says 'GPU Excluded: Yes' → GPU_EXCLUDED warning naming its address", async () => {
    base ??= await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const snap: Snapshot = structuredClone(base);
    const dir = Object.keys(snap.fileGroups ?? {})
      .filter((d) => d.startsWith("/proc/driver/nvidia/gpus/"))
      .sort()
      .at(-1)!;
    const address = dir.slice("/proc/driver/nvidia/gpus/".length);
    const group = snap.fileGroups![dir]!;
    group.information = group.information!.replace("GPU Excluded:\t No", "GPU Excluded:\t Yes");
    const smi = snap.commands[SMI]!;
    const blocks = smi.stdout.split(/(?=\t<gpu id=)/);
    const withoutLast = blocks
      .filter((b) => !b.toUpperCase().includes(address.slice(5).toUpperCase()))
      .join("")
      .replace("<attached_gpus>8</attached_gpus>", "<attached_gpus>7</attached_gpus>");
    snap.commands[SMI] = {
      ...smi,
      stdout: withoutLast.includes("</nvidia_smi_log>") ? withoutLast : `${withoutLast}</nvidia_smi_log>\n`,
    };
    const { code, findings, report } = await verifySnapshot(snap);
    expect((report.inventory as unknown as { gpus: unknown[] }).gpus).toHaveLength(7);
    const excluded = findings.filter((f) => f.code === "GPU_EXCLUDED");
    expect(excluded).toHaveLength(1);
    expect(excluded[0]).toMatchObject({ severity: "warning", subject: address });
    expect(excluded[0]!.message).toMatch(/one GPU fewer than it carries/);
    expect(excluded[0]!.fix).toMatch(/NVreg_ExcludedGpus/);
    expect(code).toBe(0);
  });
});
