/**
 * Writes a PCIe function's config space the way `/sys/bus/pci/devices/<bdf>/config` holds it, as hex: the standard
 * header, a PCI Express capability with the port type, and an extended capability list (AER first, as on real
 * switch ports, then ACS when given). Used by the example hosts and the parser's tests.
 */
import { encodeBytesHex } from "../core/hex-bytes.js";

export type ConfigSpaceSpec = {
  vendorId: number;
  deviceId: number;
  /** PCI Express device/port type (4 root port, 5 switch upstream, 6 switch downstream, 0 endpoint). */
  portType: number;
  /** ACS Control register; null: no ACS capability. */
  acsControl: number | null;
  /** Bytes to hand out: 4096 (root), 64 (what a reader without root gets). */
  length?: number;
  /** PCI Express Device Control (relaxed ordering, MaxPayload, MaxReadReq); 0 when not given. */
  deviceControl?: number;
};

/** Device Control as a tuned RDMA NIC has it: relaxed ordering on, MaxPayload 256, MaxReadReq 4096, error reporting. */
export const NIC_DEVICE_CONTROL = 0x5000 | 0x0020 | 0x0010 | 0x000f;

/** ACS Control with Source Validation, P2P Request Redirect and P2P Completion Redirect set (what BIOSes enable). */
export const ACS_REDIRECTING = 0x1d;

export function configSpaceBytes(spec: ConfigSpaceSpec): Uint8Array {
  const b = new Uint8Array(4096);
  const w16 = (at: number, v: number) => {
    b[at] = v & 0xff;
    b[at + 1] = (v >> 8) & 0xff;
  };
  const w32 = (at: number, v: number) => {
    w16(at, v & 0xffff);
    w16(at + 2, (v >>> 16) & 0xffff);
  };
  w16(0x00, spec.vendorId);
  w16(0x02, spec.deviceId);
  w16(0x06, 0x0010); // capability list present
  b[0x0e] = spec.portType === 0 ? 0x00 : 0x01; // header type: bridges are type 1
  b[0x34] = 0x40;
  // Power management at 0x40, then PCI Express at 0x60.
  b[0x40] = 0x01;
  b[0x41] = 0x60;
  b[0x60] = 0x10;
  b[0x61] = 0x00;
  w16(0x62, 0x0002 | (spec.portType << 4));
  w16(0x68, spec.deviceControl ?? 0);
  // Extended list: AER at 0x100 → (ACS at 0x148).
  const hasAcs = spec.acsControl !== null;
  w32(0x100, 0x0001 | (1 << 16) | ((hasAcs ? 0x148 : 0) << 20));
  if (hasAcs) {
    w32(0x148, 0x000d | (1 << 16));
    w16(0x14c, 0x005f); // capability: SV, TB, RR, CR, UF, DT
    w16(0x14e, spec.acsControl ?? 0);
  }
  return b.subarray(0, spec.length ?? 4096);
}

export function configSpaceHex(spec: ConfigSpaceSpec): string {
  return encodeBytesHex(configSpaceBytes(spec));
}
