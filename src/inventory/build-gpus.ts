/** The GPU part of the node model: the NVIDIA driver, GPUs, GPU↔NIC paths, GPUDirect. */
import { NOT_RECORDED } from "../host/errors.js";
import type { CommandOutcome } from "../host/types.js";
import { normalizeBusId, parseNvidiaSmiXml } from "../parse/nvidia-smi-xml.js";
import type { HostFacts, PciFacts } from "./facts.js";
import type { GpuDriverInfo } from "./gpu-driver-info.js";
import { pciNumbers, type Reading } from "./reading.js";
import { classifySmiFailure, procDriverVersion } from "./smi-failure.js";
import { memoSplitPciPath, pciDistance } from "./topology.js";
import type { DriverInfo, Gpu, GpuDirect, GpuNicPath, Hca } from "./types.js";

export type SmiResult = { driver: DriverInfo; gpus: ReturnType<typeof parseNvidiaSmiXml> | null };

/** `procVersion`: /proc/driver/nvidia/version, for the driver version when nvidia-smi cannot tell it. */
export function buildDriver(rd: Reading, o: CommandOutcome, procVersion: string | null = null): SmiResult {
  const none = { driverVersion: procDriverVersion(procVersion), cudaVersion: null };
  if (o.error?.code === NOT_RECORDED) {
    const driver: DriverInfo = { status: "unavailable", ...none, error: o.error.message, errorCode: o.error.code };
    return { driver, gpus: null };
  }
  if (o.error?.code === "ENOENT") {
    // No nvidia-smi where it was looked for, yet the kernel module is loaded: a GPU-operator node keeps nvidia-smi in
    // its driver container (/run/nvidia/driver), a pod image may not ship it. The driver is there; only this way of
    // asking it is missing — a check that could not run, not "no driver".
    const status = none.driverVersion ? "unavailable" : "absent";
    return { driver: { status, ...none, error: o.error.message }, gpus: null };
  }
  if (o.error?.code === "ETIMEDOUT")
    return { driver: { status: "timeout", ...none, error: o.error.message }, gpus: null };
  if (o.error || o.exitCode !== 0) {
    const said = (o.stdout.trim() || o.stderr.trim()).split("\n")[0] ?? "";
    const error = o.error?.message ?? `${o.command} exited with ${o.exitCode}${said ? `: ${said}` : ""}`;
    const failure = o.error ? null : classifySmiFailure(o);
    if (failure?.cause === "environment") {
      return { driver: { status: "unavailable", ...none, error: `${failure.why}: ${said}` }, gpus: null };
    }
    return { driver: { status: "error", ...none, error }, gpus: null };
  }
  const r = parseNvidiaSmiXml(o.stdout);
  for (const p of r.problems) rd.problems.push({ ...p, path: o.command });
  if (!r.ok) {
    return { driver: { status: "error", ...none, error: r.problems[0]?.message ?? "unreadable output" }, gpus: r };
  }
  return {
    driver: { status: "ok", driverVersion: r.value.driverVersion, cudaVersion: r.value.cudaVersion, error: null },
    gpus: r,
  };
}

export function buildGpus(
  rd: Reading,
  smi: SmiResult,
  pciFacts: PciFacts[],
  driverInfo: readonly GpuDriverInfo[] = [],
): Gpu[] {
  const byAddress = new Map(pciFacts.map((p) => [p.address, p]));
  const fromSmi = smi.gpus?.ok ? smi.gpus.value.gpus : null;
  if (fromSmi) {
    return fromSmi.map((g) => {
      const pci = pciNumbers(rd, byAddress.get(g.busId) ?? null);
      // Written out rather than spread: ~10,000 nodes × 8 GPUs in a fleet run.
      return {
        index: g.index,
        name: g.name,
        uuid: g.uuid,
        memoryTotalMiB: g.memoryTotalMiB,
        persistenceMode: g.persistenceMode,
        migMode: g.migMode,
        eccVolatileUncorrected: g.eccVolatileUncorrected,
        eccAggregateUncorrected: g.eccAggregateUncorrected,
        retiredPagesPending: g.retiredPagesPending,
        remappedRows: g.remappedRows,
        pcieGen: g.pcieGen,
        pcieWidth: g.pcieWidth,
        fabric: g.fabric,
        clockEvents: g.clockEvents,
        pciAddress: g.busId,
        link: pci.link,
        numaNode: pci.numaNode,
        pciPath: pci.pciPath,
      };
    });
  }
  // nvidia-smi gave no GPUs: the GPUs the PCI bus shows, named by the kernel module where it says (/proc), so the
  // report still says what is there.
  const why = smi.driver.status === "unavailable" ? "nvidia-smi could not run here" : "driver did not answer";
  return pciFacts.map((p, index) => {
    const pci = pciNumbers(rd, p);
    const info = driverInfo[index] ?? null;
    return {
      index,
      name: info?.model ?? `NVIDIA GPU (PCI device ${pci.deviceId ?? "unknown"}; ${why})`,
      nameFrom: info ? "driver" : "pci",
      pciAddress: normalizeBusId(p.address) ?? p.address,
      uuid: info?.uuid ?? null,
      memoryTotalMiB: null,
      persistenceMode: null,
      migMode: null,
      eccVolatileUncorrected: null,
      eccAggregateUncorrected: null,
      retiredPagesPending: null,
      remappedRows: null,
      pcieGen: { current: null, max: null },
      pcieWidth: { current: null, max: null },
      link: pci.link,
      numaNode: pci.numaNode,
      pciPath: pci.pciPath,
    };
  });
}

export function buildPaths(gpus: Gpu[], hcas: Hca[]): GpuNicPath[] {
  const out: GpuNicPath[] = [];
  const split = memoSplitPciPath();
  for (const g of gpus) {
    if (!g.pciPath) continue;
    for (const h of hcas) {
      if (!h.pciPath) continue;
      const d = pciDistance(
        { path: g.pciPath, numaNode: g.numaNode },
        { path: h.pciPath, numaNode: h.numaNode },
        split,
      );
      if (d) out.push({ gpu: g.index, hca: h.name, distance: d.nccl, nvsmi: d.nvsmi });
    }
  }
  return out;
}

function kernelAtLeast(release: string | null, major: number, minor: number): boolean {
  const m = release ? /^(\d+)\.(\d+)/.exec(release) : null;
  if (!m) return false;
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

export function buildGpuDirect(facts: HostFacts, driver: DriverInfo): GpuDirect {
  const m = facts.modules;
  const peermem = m.nvidiaPeermem ? "nvidia_peermem" : m.nvPeerMem || m.memoryPeersNvMem ? "nv_peer_mem" : null;
  const reasons: string[] = [];
  if (peermem) reasons.push(`${peermem} is loaded: NCCL registers GPU memory through the peer-memory client`);
  const driverMajor = Number(driver.driverVersion?.split(".")[0] ?? Number.NaN);
  const release = facts.kernelRelease.ok ? facts.kernelRelease.value.trim() : null;
  // DMA-BUF for GPU memory needs the open GPU kernel module (the proprietary one exports no DMA-BUF for device
  // memory), driver R515+ and a kernel ≥ 5.12 (NVIDIA GPUDirect RDMA docs,
  // https://docs.nvidia.com/cuda/gpudirect-rdma/#using-dma-buf; NCCL uses it from 2.13 on, NCCL_DMABUF_ENABLE).
  // /proc/driver/nvidia/version names the flavour: "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64 …".
  const kernelModule = !facts.nvidiaDriverProc.ok
    ? null
    : /Open Kernel Module/.test(facts.nvidiaDriverProc.value)
      ? "open"
      : /Kernel Module/.test(facts.nvidiaDriverProc.value)
        ? "proprietary"
        : null;
  const driverOk = Number.isFinite(driverMajor) && driverMajor >= 515;
  const kernelOk = kernelAtLeast(release, 5, 12);
  const dmabufPossible = driverOk && kernelOk && kernelModule === "open";
  if (dmabufPossible) {
    reasons.push(
      `DMA-BUF is possible: the open GPU kernel module, driver ${driver.driverVersion} ≥ 515, kernel ${release} ≥ 5.12`,
    );
  } else {
    const why = !driverOk
      ? `driver ${driver.driverVersion ?? "unknown"} is older than 515`
      : !kernelOk
        ? `kernel ${release ?? "unknown"} is older than 5.12`
        : kernelModule === "proprietary"
          ? "the proprietary GPU kernel module exports no DMA-BUF for GPU memory (the open module does)"
          : "the GPU kernel module's flavour is unknown (/proc/driver/nvidia/version unreadable)";
    reasons.push(`DMA-BUF is not possible: ${why}`);
  }
  if (!m.nvidia) reasons.push("the nvidia kernel module is not loaded");
  return {
    peermem,
    nvidiaLoaded: m.nvidia,
    dmabufPossible,
    kernelModule,
    mechanism: peermem ? "peermem" : dmabufPossible ? "dmabuf" : null,
    reasons,
  };
}
