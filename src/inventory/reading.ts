/** What every part of the node model build shares: the problem collector and the PCI-function numbers. */
import { implausibleName, isPlausibleDeviceName, isPlausibleHostname, type NameKind } from "../core/device-name.js";
import { type Problem, problem } from "../core/result.js";
import type { ReadOutcome } from "../host/types.js";
import { parseNumaNode, parseSysfsHex } from "../parse/sysfs.js";
import type { Fact, PciFacts } from "./facts.js";
import { BDF } from "./topology.js";
import type { PcieLink } from "./types.js";

/** Collects problems while reading facts; `value` returns the trimmed text or null. */
export class Reading {
  readonly problems: Problem[] = [];

  /** Text of a read; a failed read becomes a problem unless it is one of the `quiet` codes. */
  value(path: string, f: Fact | ReadOutcome<number>, quiet: readonly string[] = []): string | null {
    if (f.ok) return String(f.value).trim();
    if (!quiet.includes(f.error.code)) this.failed(path, f.error.code, f.error.message);
    return null;
  }

  private readonly refused = new Set<string>();

  /**
   * A name from the host (`what`: "RDMA device", "network interface", "hostname"), or null when the kernel would not
   * have given it: the name is refused here, once, with a problem, so no output ever carries it.
   */
  name(path: string, what: NameKind, value: string): string | null {
    const plausible = what === "hostname" ? isPlausibleHostname(value) : isPlausibleDeviceName(value);
    if (plausible) return value;
    const key = `${what}\u0000${value}`;
    if (this.refused.has(key)) return null;
    this.refused.add(key);
    this.problems.push(implausibleName(what, value, path));
    return null;
  }

  failed(path: string, code: string, message: string): void {
    this.problems.push(problem("host.read_failed", message, { path, hint: hintFor(code, path) }));
  }

  parsed<T>(
    r: { ok: true; value: T; problems: Problem[] } | { ok: false; problems: Problem[] },
    path: string,
  ): T | null {
    for (const p of r.problems) this.problems.push({ ...p, path: p.path ?? path });
    return r.ok ? r.value : null;
  }
}

function hintFor(code: string, path: string): string {
  if (code === "EACCES" || code === "EPERM") {
    return "Run as root, or in a pod mount the host's /sys and /proc read-only and pass --root /host.";
  }
  if (code === "EHARDLINK") {
    return "A --root tree is a copy of the host's /sys and /proc: copy the file into it (cp), never hard-link it (ln), then rerun.";
  }
  if (code === "ENOENT" && path.startsWith("/sys/class/infiniband")) {
    return "Is the RDMA driver loaded? Check `lsmod | grep mlx5_ib` and `ls /sys/class/infiniband`.";
  }
  if (code === "ENOENT") return `Check that ${path} exists on this host (a --root tree may be incomplete).`;
  return `Read ${path} by hand (\`cat ${path}\`) to see the kernel's answer.`;
}

export function numberOf(text: string | null): number | null {
  if (text === null) return null;
  const n = Number(text);
  return Number.isFinite(n) && text !== "" ? n : null;
}

/** The PCI address a resolved `device` link ends in (`…/0000:55:00.0`), or null. */
export function pciAddressOf(path: ReadOutcome<string>): string | null {
  if (!path.ok) return null;
  const last = path.value.slice(path.value.lastIndexOf("/") + 1);
  return BDF.test(last) ? last : null;
}

export function pciNumbers(rd: Reading, pci: PciFacts | null) {
  if (!pci) return { numaNode: null, vendorId: null, deviceId: null, pciPath: null, link: null };
  const base = `/sys/bus/pci/devices/${pci.address}`;
  const numaText = rd.value(`${base}/numa_node`, pci.numaNode, ["ENOENT"]);
  const hex = (f: Fact, name: string) => {
    const t = rd.value(`${base}/${name}`, f, ["ENOENT"]);
    const r = t === null ? null : parseSysfsHex(t, `${base}/${name}`);
    return r?.ok ? r.value.text : null;
  };
  const text = (f: Fact) => (f.ok ? f.value.trim() : null);
  const link: PcieLink = {
    currentSpeed: text(pci.currentLinkSpeed),
    maxSpeed: text(pci.maxLinkSpeed),
    currentWidth: numberOf(text(pci.currentLinkWidth)),
    maxWidth: numberOf(text(pci.maxLinkWidth)),
  };
  const numa = numaText === null ? null : parseNumaNode(numaText);
  return {
    numaNode: numa?.ok ? numa.value : null,
    vendorId: hex(pci.vendor, "vendor"),
    deviceId: hex(pci.device, "device"),
    pciPath: pci.path.ok ? pci.path.value : null,
    link: Object.values(link).every((v) => v === null) ? null : link,
  };
}
