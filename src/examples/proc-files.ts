/** The /proc files of an example host, in the kernel's formats. */

import { networkOf } from "../parse/ipv4.js";
import type { HostSpec, NicSpec } from "./builder.js";
import type { HostTree } from "./tree.js";

const hex2 = (n: number) => n.toString(16).padStart(2, "0");

/** /proc: the route table (default route + one connected /27 per data NIC), hostname, kernel, driver, status, limits. */
export function writeProcFiles(t: HostTree, spec: HostSpec, nics: readonly NicSpec[]): void {
  const routes = [
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT                                                       ",
    routeLine(spec.defaultRoute.netdev, "0.0.0.0", spec.defaultRoute.gateway, "0003", "0.0.0.0"),
  ];
  for (const nic of nics) {
    const ip = nic.ipv4[0];
    if (ip && nic.netdev) routes.push(routeLine(nic.netdev, networkOf(ip, 27)!, "0.0.0.0", "0001", "255.255.255.224"));
  }
  t.file("/proc/net/route", `${routes.join("\n")}\n`);
  t.file("/proc/sys/kernel/hostname", `${spec.hostname}\n`);
  t.file(
    "/proc/cmdline",
    `BOOT_IMAGE=/boot/vmlinuz-${spec.kernelRelease} root=UUID=3f1c9a2e-8d41-4b7a-9c55-0e2d6b1f7a10 ro intel_iommu=on iommu=pt\n`,
  );
  t.file("/proc/sys/kernel/osrelease", `${spec.kernelRelease}\n`);
  t.file(
    "/proc/driver/nvidia/version",
    `NVRM version: NVIDIA UNIX ${spec.openKernelModule ? "Open Kernel Module for x86_64" : "x86_64 Kernel Module"}  ` +
      `${spec.driverVersion}  Thu Jun 30 18:45:31 UTC 2022\nGCC version:  gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1) \n`,
  );
  t.file(
    "/proc/self/status",
    "Name:\tkube-rdma\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nNgid:\t0\nPid:\t4242\nPPid:\t4200\n" +
      "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t0 \nNStgid:\t4242\nNSpid:\t4242\n" +
      "NSpgid:\t4242\nNSsid:\t4200\nVmPeak:\t  1050000 kB\nVmSize:\t  1050000 kB\nThreads:\t11\n" +
      "SigQ:\t0/2061216\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n" +
      "SigIgn:\t0000000001001000\nSigCgt:\t0000000188004602\nCapInh:\t0000000000000000\n" +
      "CapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n" +
      "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n" +
      "Speculation_Store_Bypass:\tthread vulnerable\nCpus_allowed_list:\t0-127\nMems_allowed_list:\t0-1\n" +
      "voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n",
  );
  t.file("/proc/self/limits", limitsText("unlimited", "unlimited"));
}

/** `/proc/self/limits` with the given memlock soft/hard values. */
export function limitsText(soft: string, hard: string): string {
  const row = (name: string, s: string, h: string, unit: string) =>
    `${name.padEnd(26)}${s.padEnd(21)}${h.padEnd(21)}${unit.padEnd(10)}\n`;
  return (
    row("Limit", "Soft Limit", "Hard Limit", "Units") +
    row("Max cpu time", "unlimited", "unlimited", "seconds") +
    row("Max file size", "unlimited", "unlimited", "bytes") +
    row("Max data size", "unlimited", "unlimited", "bytes") +
    row("Max stack size", "8388608", "unlimited", "bytes") +
    row("Max core file size", "unlimited", "unlimited", "bytes") +
    row("Max resident set", "unlimited", "unlimited", "bytes") +
    row("Max processes", "unlimited", "unlimited", "processes") +
    row("Max open files", "1048576", "1048576", "files") +
    row("Max locked memory", soft, hard, "bytes") +
    row("Max address space", "unlimited", "unlimited", "bytes") +
    row("Max file locks", "unlimited", "unlimited", "locks") +
    row("Max pending signals", "2061216", "2061216", "signals") +
    row("Max msgqueue size", "819200", "819200", "bytes") +
    row("Max nice priority", "0", "0", "") +
    row("Max realtime priority", "0", "0", "") +
    row("Max realtime timeout", "unlimited", "unlimited", "us")
  );
}

function routeLine(dev: string, dest: string, gw: string, flags: string, mask: string): string {
  return [dev, hexIp(dest), hexIp(gw), flags, "0", "0", "0", hexIp(mask), "0", "0", "0"].join("\t");
}

/** /proc/net/route stores addresses as little-endian hex. */
function hexIp(ip: string): string {
  return ip
    .split(".")
    .map((b) => hex2(Number(b)).toUpperCase())
    .reverse()
    .join("");
}
