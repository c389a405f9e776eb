import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decodeBytesHex, encodeBytesHex } from "../core/hex-bytes.js";
import { ACS_REDIRECTING, configSpaceBytes, configSpaceHex, NIC_DEVICE_CONTROL } from "../examples/pci-config-space.js";
import { acsRedirects, PCI_EXT_CAP_ACS, parsePciConfig } from "./pci-config.js";

const SWITCH_DOWNSTREAM = { vendorId: 0x1000, deviceId: 0xc010, portType: 6 };

describe("PCI config space", () => {
  test("a switch downstream port with ACS redirects set: its type and the three redirecting bits", () => {
    const r = parsePciConfig(configSpaceHex({ ...SWITCH_DOWNSTREAM, acsControl: ACS_REDIRECTING }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ vendorId: 0x1000, portType: "downstream_port", extendedSpace: "present" });
    expect(r.value.acs).toMatchObject({ offset: 0x148, requestRedirect: true, completionRedirect: true });
    expect(acsRedirects(r.value.acs!)).toEqual(["SrcValid", "ReqRedir", "CmpltRedir"]);
  });

  test("ACS present but disabled: no redirecting bit", () => {
    const r = parsePciConfig(configSpaceHex({ ...SWITCH_DOWNSTREAM, acsControl: 0 }));
    expect(r.ok && r.value.acs && acsRedirects(r.value.acs)).toEqual([]);
  });

  test("the 64 bytes a reader without root gets: header readable, extended space unreadable, no ACS claimed", () => {
    const r = parsePciConfig(configSpaceHex({ ...SWITCH_DOWNSTREAM, acsControl: ACS_REDIRECTING, length: 64 }));
    expect(r.ok && r.value).toMatchObject({ length: 64, extendedSpace: "unreadable", acs: null, portType: null });
  });

  test("256 bytes (conventional function): the port type is known, there is no extended space", () => {
    const r = parsePciConfig(configSpaceHex({ ...SWITCH_DOWNSTREAM, acsControl: ACS_REDIRECTING, length: 256 }));
    expect(r.ok && r.value).toMatchObject({ extendedSpace: "absent", acs: null, portType: "downstream_port" });
  });

  // Device Control (PCI Express capability + 8): bit 4 Enable Relaxed Ordering, bits 7:5 Max_Payload_Size, bits 14:12
  // Max_Read_Request_Size, each 128 << value (PCI Express Base Specification; lspci's RlxdOrd/MaxPayload/MaxReadReq).
  test("a NIC endpoint's Device Control: relaxed ordering, MaxPayload 256, MaxReadReq 4096; 512 without RO", () => {
    const nic = { vendorId: 0x15b3, deviceId: 0x101b, portType: 0, acsControl: null };
    const tuned = parsePciConfig(configSpaceHex({ ...nic, deviceControl: NIC_DEVICE_CONTROL }));
    expect(tuned.ok && tuned.value.deviceControl).toMatchObject({
      relaxedOrdering: true,
      maxPayloadBytes: 256,
      maxReadRequestBytes: 4096,
    });
    const plain = parsePciConfig(configSpaceHex({ ...nic, deviceControl: 0x2020 }));
    expect(plain.ok && plain.value.deviceControl).toMatchObject({ relaxedOrdering: false, maxReadRequestBytes: 512 });
    const noRoot = parsePciConfig(configSpaceHex({ ...nic, deviceControl: NIC_DEVICE_CONTROL, length: 64 }));
    expect(noRoot.ok && noRoot.value.deviceControl).toBeNull();
  });

  test("text that is not hex, or shorter than the header, is a problem, not a crash", () => {
    expect(parsePciConfig("zz").ok).toBe(false);
    expect(parsePciConfig("8680").problems[0]?.code).toBe("pci_config.short");
    expect(parsePciConfig(`${"ff".repeat(64)}`).problems[0]?.code).toBe("pci_config.absent");
  });

  test("the compact hex form round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        expect(decodeBytesHex(encodeBytesHex(bytes))).toEqual(bytes);
      }),
    );
  });
});

/** Extended capabilities written at the given offsets, chained in the given order; ACS somewhere or nowhere. */
function chain(offsets: number[], acsAt: number | null, control: number, lastNext: number): Uint8Array {
  const b = configSpaceBytes({ ...SWITCH_DOWNSTREAM, acsControl: null });
  b.fill(0, 0x100);
  offsets.forEach((at, i) => {
    const next = i + 1 < offsets.length ? offsets[i + 1]! : lastNext;
    const id = at === acsAt ? PCI_EXT_CAP_ACS : 0x0001 + (i % 0x0b);
    const header = (id | (1 << 16) | (next << 20)) >>> 0;
    new DataView(b.buffer).setUint32(at, header, true);
    if (at === acsAt) new DataView(b.buffer).setUint16(at + 6, control, true);
  });
  return b;
}

describe("PCI config space with random capability chains (property)", () => {
  const offsets = fc.uniqueArray(
    // Each capability takes 8 bytes here (header, ACS capability and control): offsets 8 apart never overlap.
    fc.integer({ min: 0x100 / 8, max: (0x1000 - 8) / 8 }).map((n) => n * 8),
    { minLength: 1, maxLength: 30 },
  );

  test("ACS anywhere on a chain is found, with its control bits", () => {
    fc.assert(
      fc.property(offsets, fc.nat(), fc.integer({ min: 0, max: 0x7f }), (offs, pick, control) => {
        // The list starts at 0x100, as the specification requires.
        const list = [0x100, ...offs.filter((o) => o !== 0x100)];
        const acsAt = list[pick % list.length]!;
        const r = parsePciConfig(encodeBytesHex(chain(list, acsAt, control, 0)));
        expect(r.ok && r.value.acs).toMatchObject({ offset: acsAt, control });
      }),
    );
  });

  test("a chain that loops back ends without ACS and without hanging", () => {
    fc.assert(
      fc.property(offsets, fc.nat(), (offs, back) => {
        const list = [0x100, ...offs.filter((o) => o !== 0x100)];
        const r = parsePciConfig(encodeBytesHex(chain(list, null, 0, list[back % list.length]!)));
        expect(r.ok && r.value.acs).toBe(null);
      }),
    );
  });

  test("any bytes, cut anywhere, parse or fail with a problem — never throw", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 4096 }), fc.boolean(), (bytes, asRoot) => {
        const full = new Uint8Array(asRoot ? 4096 : bytes.length);
        full.set(bytes.subarray(0, full.length));
        const r = parsePciConfig(encodeBytesHex(full));
        expect(r.ok || r.problems.length > 0).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test("any text parses or fails with a problem", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const r = parsePciConfig(text);
        expect(r.ok || r.problems.length > 0).toBe(true);
      }),
    );
  });
});
