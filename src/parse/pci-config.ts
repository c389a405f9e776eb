/**
 * PCI configuration space, as `/sys/bus/pci/devices/<bdf>/config` hands it out (the snapshot carries it as hex):
 * the port type from the PCI Express capability and the ACS extended capability. Pure; never throws, never loops.
 *
 * Layout (PCI Express Base Specification; Linux include/uapi/linux/pci_regs.h, lspci ls-ecaps.c):
 * - 0x06 Status, bit 4: a capability list exists; 0x34: its first pointer (low 2 bits reserved). Each standard
 *   capability: byte 0 ID, byte 1 next pointer. The PCI Express capability is ID 0x10; its Capabilities register
 *   (+2) holds the device/port type in bits 7:4 (4 root port, 5 switch upstream port, 6 switch downstream port).
 * - Extended capabilities from 0x100: a 32-bit header, ID in bits 15:0, version 19:16, next offset 31:20 (low
 *   2 bits reserved; 0 ends the list). ACS is ID 0x000D: Capability register at +4, Control register at +6.
 * - PCI Express capability + 8: Device Control. Bit 4 Enable Relaxed Ordering; bits 7:5 Max_Payload_Size and
 *   14:12 Max_Read_Request_Size, each 128 << value bytes (lspci shows them as `RlxdOrd+`, `MaxPayload`, `MaxReadReq`).
 * - ACS Control bits: 0 Source Validation, 1 Translation Blocking, 2 P2P Request Redirect, 3 P2P Completion
 *   Redirect, 4 Upstream Forwarding, 5 P2P Egress Control, 6 Direct Translated P2P.
 * An unprivileged reader gets only the first 64 bytes (the kernel hides the rest from non-root); a conventional
 * PCI function has 256 bytes and no extended space.
 */

import { decodeHexHead } from "../core/hex-bytes.js";
import { fail, ok, type ParseResult, problem } from "../core/result.js";

export type PciPortType = "endpoint" | "root_port" | "upstream_port" | "downstream_port" | "pcie_bridge" | "other";

export type AcsControl = {
  /** Offset of the ACS capability header in config space. */
  offset: number;
  capability: number;
  control: number;
  sourceValidation: boolean;
  translationBlocking: boolean;
  requestRedirect: boolean;
  completionRedirect: boolean;
  upstreamForwarding: boolean;
  egressControl: boolean;
  directTranslated: boolean;
};

/** The PCI Express Device Control register: what the function may do on the link. */
export type DeviceControl = {
  value: number;
  relaxedOrdering: boolean;
  maxPayloadBytes: number;
  maxReadRequestBytes: number;
};

export type PciConfig = {
  /** Bytes read (64 when only the standard header is readable, 256 conventional, 4096 with extended space). */
  length: number;
  vendorId: number;
  deviceId: number;
  /** From the PCI Express capability; null when the function has none or the list could not be walked. */
  portType: PciPortType | null;
  /**
   * `present`: 4096 bytes read; `absent`: 256 bytes (no extended space); `unreadable`: fewer than 256 bytes, which
   * is what a reader without root gets.
   */
  extendedSpace: "present" | "absent" | "unreadable";
  /** The ACS capability, or null when the extended list has none (or extended space was not read). */
  acs: AcsControl | null;
  /** Device Control of the PCI Express capability; null when the function has none or it was not readable. */
  deviceControl: DeviceControl | null;
};

const PORT_TYPES: Record<number, PciPortType> = {
  0: "endpoint",
  1: "endpoint",
  4: "root_port",
  5: "upstream_port",
  6: "downstream_port",
  7: "pcie_bridge",
  8: "pcie_bridge",
  9: "endpoint",
  10: "other",
};

export const PCI_EXT_CAP_ACS = 0x000d;
const PCI_CAP_EXP = 0x10;
const STANDARD_HEADER = 64;
const CONVENTIONAL = 256;
const EXTENDED = 4096;

// Reads past the bytes spelled out (a config space's trailing zeros are left implicit) are 0, like those bytes.
const u16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

/** The offset of the PCI Express capability in the standard list (visible in the first 256 bytes), or null. */
function expCapOffset(b: Uint8Array, length: number): number | null {
  if ((u16(b, 0x06) & 0x10) === 0) return null;
  let at = (b[0x34] ?? 0) & 0xfc;
  const seen = new Set<number>();
  // 48 capabilities fit in 256 bytes; a pointer seen twice is a loop.
  while (at >= STANDARD_HEADER && at + 4 <= Math.min(length, CONVENTIONAL) && !seen.has(at) && seen.size < 48) {
    seen.add(at);
    if (b[at] === PCI_CAP_EXP) return at;
    at = (b[at + 1] ?? 0) & 0xfc;
  }
  return null;
}

function deviceControlAt(b: Uint8Array, cap: number, length: number): DeviceControl | null {
  if (cap + 10 > length) return null;
  const value = u16(b, cap + 8);
  return {
    value,
    relaxedOrdering: (value & 0x10) !== 0,
    maxPayloadBytes: 128 << ((value >> 5) & 0x7),
    maxReadRequestBytes: 128 << ((value >> 12) & 0x7),
  };
}

function acsOf(b: Uint8Array, length: number): AcsControl | null {
  let at = CONVENTIONAL;
  const seen = new Set<number>();
  // (4096 - 256) / 8 headers at most, as the kernel's pci_find_next_ext_capability bounds its walk.
  while (at >= CONVENTIONAL && at + 8 <= length && !seen.has(at) && seen.size < (EXTENDED - CONVENTIONAL) / 8) {
    seen.add(at);
    const header = u32(b, at);
    if (header === 0 || header === 0xffffffff) return null;
    if ((header & 0xffff) === PCI_EXT_CAP_ACS) {
      const control = u16(b, at + 6);
      return {
        offset: at,
        capability: u16(b, at + 4),
        control,
        sourceValidation: (control & 0x01) !== 0,
        translationBlocking: (control & 0x02) !== 0,
        requestRedirect: (control & 0x04) !== 0,
        completionRedirect: (control & 0x08) !== 0,
        upstreamForwarding: (control & 0x10) !== 0,
        egressControl: (control & 0x20) !== 0,
        directTranslated: (control & 0x40) !== 0,
      };
    }
    at = (header >>> 20) & 0xffc;
  }
  return null;
}

/** Parses a function's config space from the hex the readers hand out. */
export function parsePciConfig(hex: string, path?: string): ParseResult<PciConfig> {
  const where = path ? { path } : {};
  // The bytes written out; the rest of `length` (most of a 4096-byte extended space) is zeros, never allocated.
  const decoded = decodeHexHead(hex);
  if (!decoded) {
    return fail(
      problem(
        "pci_config.not_hex",
        "PCI config space is not hex bytes (expected pairs of 0-9a-f, optionally `*LENGTH` for trailing zeros)",
        where,
      ),
    );
  }
  const { head: b, length } = decoded;
  if (length < STANDARD_HEADER) {
    return fail(
      problem(
        "pci_config.short",
        `PCI config space has ${length} bytes; expected at least the 64-byte standard header`,
        where,
      ),
    );
  }
  const vendorId = u16(b, 0);
  if (vendorId === 0xffff) {
    return fail(problem("pci_config.absent", "PCI config space reads all ones: the function is gone", where));
  }
  const cap = expCapOffset(b, length);
  const extendedSpace = length >= EXTENDED ? "present" : length >= CONVENTIONAL ? "absent" : "unreadable";
  return ok({
    length,
    vendorId,
    deviceId: u16(b, 2),
    portType: cap === null ? null : (PORT_TYPES[(u16(b, cap + 2) >> 4) & 0xf] ?? "other"),
    extendedSpace,
    acs: extendedSpace === "present" ? acsOf(b, length) : null,
    deviceControl: cap === null ? null : deviceControlAt(b, cap, length),
  });
}

/** The ACS bits that send peer-to-peer traffic up to the root complex (what GPUDirect RDMA must not meet). */
export function acsRedirects(acs: AcsControl): string[] {
  const out: string[] = [];
  if (acs.sourceValidation) out.push("SrcValid");
  if (acs.requestRedirect) out.push("ReqRedir");
  if (acs.completionRedirect) out.push("CmpltRedir");
  return out;
}
