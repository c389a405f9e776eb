import { describe, expect, test } from "vitest";
import { runChecks, verifyReport } from "./index.js";
import { only, problemsOf, verdicts } from "./testing/expect.js";
import { gpuOf, seedInventory } from "./testing/seed-inventory.js";

describe("the seed node as the guide describes it", () => {
  test("passes with no error and no warning, and the report says pass", () => {
    const inv = seedInventory();
    const findings = runChecks(inv, { expectGpus: 8, expectGpuModel: "A100", pod: true });
    expect(problemsOf(findings)).toEqual([]);
    const report = verifyReport(inv, findings);
    expect(report.summary).toMatchObject({ status: "pass", errors: 0, warnings: 0 });
    expect(report.schemaVersion).toBe(1);
    expect(report.host).toBe("cce-a100-roce-01");
  });

  test("every finding of every rule carries a message and a fix", () => {
    const inv = seedInventory();
    inv.ofed = { status: "absent", flavor: null, version: null, raw: null };
    inv.gpus.pop();
    gpuOf(inv, 3).pcieWidth.current = 8;
    const findings = runChecks(inv, { expectGpus: 8 });
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.message.length).toBeGreaterThan(20);
      expect(f.fix.length).toBeGreaterThan(10);
    }
  });
});

describe("software stack", () => {
  test("a node without ofed_info runs inbox rdma-core: OFED_ABSENT as info, still PASS", () => {
    const inv = seedInventory();
    inv.ofed = { status: "absent", flavor: null, version: null, raw: "spawn ofed_info ENOENT" };
    const findings = runChecks(inv);
    expect(verdicts(findings)).toContainEqual({ code: "OFED_ABSENT", subject: "ofed_info", severity: "info" });
    expect(only(findings, "OFED_ABSENT")[0]!.message).toMatch(/inbox rdma-core/);
    expect(verifyReport(inv, findings).summary.status).toBe("pass");
  });

  test("ofed_info printing garbage is OFED_UNRECOGNISED quoting what it printed", () => {
    const inv = seedInventory();
    inv.ofed = { status: "error", flavor: null, version: null, raw: "ofed_info: line 3: syntax error\n" };
    const [f] = only(runChecks(inv), "OFED_UNRECOGNISED");
    expect(f?.severity).toBe("warning");
    expect(f?.message).toMatch(/syntax error/);
    expect(f?.fix).toMatch(/ofed_info -s/);
  });

  test("a wedged nvidia-smi is DRIVER_NOT_RESPONDING with the Xid hint; no GPU_COUNT/GPU_MODEL noise", () => {
    const inv = seedInventory();
    inv.driver = { status: "timeout", driverVersion: null, cudaVersion: null, error: "killed after 15 s" };
    inv.gpus = [];
    const findings = runChecks(inv, { expectGpus: 8, expectGpuModel: "A100" });
    const [f] = only(findings, "DRIVER_NOT_RESPONDING");
    expect(f).toMatchObject({ severity: "error", subject: "nvidia-smi" });
    expect(f?.message).toMatch(/did not answer in time/);
    expect(f?.fix).toMatch(/dmesg -T \| grep -i xid/);
    expect(only(findings, "GPU_COUNT")).toEqual([]);
    expect(only(findings, "GPU_MODEL")).toEqual([]);
  });

  test("no nvidia-smi at all is DRIVER_ABSENT", () => {
    const inv = seedInventory();
    inv.driver = { status: "absent", driverVersion: null, cudaVersion: null, error: "nvidia-smi: not found" };
    inv.gpus = [];
    const findings = runChecks(inv);
    expect(verdicts(findings)).toContainEqual({ code: "DRIVER_ABSENT", subject: "nvidia-smi", severity: "error" });
    expect(only(findings, "DRIVER_ABSENT")[0]!.message).toBe(
      "no NVIDIA driver: nvidia-smi: not found. Without it no GPU can be used.",
    );
  });
});

describe("pod limits (--pod)", () => {
  const restricted = () => {
    const inv = seedInventory();
    inv.process = { capEff: "00000000a80425fb", ipcLock: false, memlockSoft: 65536, memlockHard: 65536 };
    inv.shmBytes = 64 * 1024 ** 2;
    return inv;
  };

  test("a default pod: no IPC_LOCK, memlock 64 KiB, /dev/shm 64 MiB → the three findings with their fixes", () => {
    const findings = runChecks(restricted(), { pod: true });
    expect(verdicts(findings)).toEqual(
      expect.arrayContaining([
        { code: "NO_IPC_LOCK", subject: "CapEff", severity: "error" },
        { code: "MEMLOCK_LIMITED", subject: "memlock", severity: "error" },
        { code: "SHM_SMALL", subject: "/dev/shm", severity: "warning" },
      ]),
    );
    expect(only(findings, "MEMLOCK_LIMITED")[0]!.message).toMatch(/64 KiB/);
    expect(only(findings, "SHM_SMALL")[0]!.message).toMatch(/64 MiB \(< 1 GiB\)/);
    expect(only(findings, "NO_IPC_LOCK")[0]!.fix).toMatch(/capabilities: \{add: \[IPC_LOCK\]\}/);
    expect(only(findings, "SHM_SMALL")[0]!.fix).toMatch(/medium: Memory/);
  });

  test("the same facts without --pod are not judged (a host is not a container)", () => {
    expect(problemsOf(runChecks(restricted()))).toEqual([]);
  });

  test("IPC_LOCK lets a limited memlock through: MEMLOCK_LIMITED drops to a warning", () => {
    const inv = restricted();
    inv.process.ipcLock = true;
    expect(verdicts(only(runChecks(inv, { pod: true }), "MEMLOCK_LIMITED"))).toEqual([
      { code: "MEMLOCK_LIMITED", subject: "memlock", severity: "warning" },
    ]);
  });

  test("--shm-min raises the bar", () => {
    const inv = seedInventory();
    inv.shmBytes = 2 * 1024 ** 3;
    expect(only(runChecks(inv, { pod: true }), "SHM_SMALL")).toEqual([]);
    const [f] = only(runChecks(inv, { pod: true, shmMinBytes: 8 * 1024 ** 3 }), "SHM_SMALL");
    expect(f?.message).toMatch(/2 GiB \(< 8 GiB\)/);
  });
});

describe("devices and read problems", () => {
  test("a node without any RDMA device is NO_RDMA_HCA (NCCL falls back to sockets)", () => {
    const inv = seedInventory();
    inv.hcas = [];
    inv.roles = { defaultRouteInterface: "eth0", managementHca: null, dataHcas: [] };
    const [f] = only(runChecks(inv), "NO_RDMA_HCA");
    expect(f).toMatchObject({ severity: "error", subject: "node" });
    expect(f?.message).toMatch(/NET\/Socket/);
  });

  test("an /dev/infiniband without uverbs is NO_UVERBS with the device-plugin fix", () => {
    const inv = seedInventory();
    inv.devices.infiniband = ["rdma_cm"];
    const [f] = only(runChecks(inv), "NO_UVERBS");
    expect(f).toMatchObject({ severity: "error", subject: "/dev/infiniband" });
    expect(f?.message).toMatch(/9 RDMA device/);
    expect(f?.fix).toMatch(/modprobe ib_uverbs/);
  });

  test("one HCA whose uverbs node is missing is named", () => {
    const inv = seedInventory();
    inv.devices.infiniband = inv.devices.infiniband.filter((d) => d !== "uverbs4");
    expect(verdicts(only(runChecks(inv), "NO_UVERBS"))).toEqual([
      { code: "NO_UVERBS", subject: "mlx5_4", severity: "error" },
    ]);
    // In a pod the device plugin may hand out a subset of the HCAs on purpose.
    expect(verdicts(only(runChecks(inv, { pod: true }), "NO_UVERBS"))).toEqual([
      { code: "NO_UVERBS", subject: "mlx5_4", severity: "warning" },
    ]);
  });

  test("every read problem becomes READ_PROBLEM on its path with its hint as the fix", () => {
    const inv = seedInventory();
    inv.problems.push({
      code: "host.read_failed",
      message: "could not read /proc/self/limits: EACCES (permission denied)",
      path: "/proc/self/limits",
      hint: "run as root",
    });
    const [f] = only(runChecks(inv), "READ_PROBLEM");
    expect(f).toMatchObject({ subject: "/proc/self/limits", severity: "warning", fix: "run as root" });
    expect(f?.message).toMatch(/EACCES/);
  });
});
