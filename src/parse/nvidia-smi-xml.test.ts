import { describe, expect, test } from "vitest";
import { renderNvidiaSmiXml, type XmlGpuSpec } from "../examples/nvidia-smi-xml.js";
import { normalizeBusId, parseNvidiaSmiXml } from "./nvidia-smi-xml.js";

const gpu = (busId: string, i: number, extra: Partial<XmlGpuSpec> = {}): XmlGpuSpec => ({
  busId,
  name: "NVIDIA A100-SXM4-80GB",
  uuid: `GPU-6f0e6d1a-0000-4000-8000-00000000000${i}`,
  memoryTotalMiB: 81251,
  minorNumber: i,
  ...extra,
});

describe("nvidia-smi -q -x", () => {
  test("driver, CUDA and each GPU's facts on an A100 node", () => {
    const xml = renderNvidiaSmiXml({
      driverVersion: "470.141.03",
      cudaVersion: "11.4",
      gpus: [gpu("00000000:53:00.0", 0), gpu("00000000:6E:00.0", 1, { pcieWidth: { max: 16, current: 8 } })],
    });
    const r = parseNvidiaSmiXml(xml);
    expect(r.problems).toEqual([]);
    if (!r.ok) throw new Error("expected ok");
    expect(r.value.driverVersion).toBe("470.141.03");
    expect(r.value.cudaVersion).toBe("11.4");
    expect(r.value.gpus.map((g) => g.busId)).toEqual(["0000:53:00.0", "0000:6e:00.0"]);
    expect(r.value.gpus[0]).toMatchObject({
      index: 0,
      name: "NVIDIA A100-SXM4-80GB",
      memoryTotalMiB: 81251,
      persistenceMode: true,
      migMode: "Disabled",
      eccVolatileUncorrected: 0,
      retiredPagesPending: null,
      remappedRows: { correctable: 0, uncorrectable: 0, pending: false, failure: false },
      pcieGen: { current: 4, max: 4 },
      pcieWidth: { current: 16, max: 16 },
    });
    expect(r.value.gpus[1]?.pcieWidth).toEqual({ current: 8, max: 16 });
  });

  test("a pending row remap and uncorrectable DRAM errors are read (Ampere layout)", () => {
    const xml = renderNvidiaSmiXml({
      driverVersion: "470.141.03",
      cudaVersion: "11.4",
      gpus: [
        gpu("00000000:6E:00.0", 2, {
          eccVolatileUncorrectable: 3,
          remapped: { corr: 0, unc: 1, pending: true, failure: false },
        }),
      ],
    });
    const r = parseNvidiaSmiXml(xml);
    expect(r.ok && r.value.gpus[0]).toMatchObject({
      eccVolatileUncorrected: 3,
      remappedRows: { uncorrectable: 1, pending: true },
    });
  });

  test("the older single_bit/double_bit layout with retired pages", () => {
    const xml = renderNvidiaSmiXml({
      driverVersion: "450.80.02",
      cudaVersion: "11.0",
      layout: "legacy",
      gpus: [gpu("00000000:3B:00.0", 0, { name: "Tesla V100-SXM2-32GB", eccAggregateUncorrectable: 2 })],
    });
    const r = parseNvidiaSmiXml(xml);
    expect(r.ok && r.value.gpus[0]).toMatchObject({
      eccVolatileUncorrected: 0,
      eccAggregateUncorrected: 2,
      retiredPagesPending: false,
      remappedRows: null,
    });
  });

  test("placeholders (N/A, [Not Supported], [Unknown Error], any case) read as missing, real values as written", () => {
    const doc = (uuid: string, persistence: string) =>
      `<?xml version="1.0" ?>\n<nvidia_smi_log>\n<driver_version>535.104.05</driver_version>\n<cuda_version>N/A</cuda_version>\n` +
      `<attached_gpus>1</attached_gpus>\n<gpu id="00000000:53:00.0">\n<uuid>${uuid}</uuid>\n` +
      `<persistence_mode>${persistence}</persistence_mode>\n</gpu>\n</nvidia_smi_log>\n`;
    for (const placeholder of ["N/A", "n/a", "[N/A]", "[Not Supported]", "[Unknown Error]", "Not Supported"]) {
      const r = parseNvidiaSmiXml(doc(placeholder, placeholder));
      if (!r.ok) throw new Error(r.problems[0]?.message);
      expect(r.value.cudaVersion).toBeNull();
      expect(r.value.gpus[0]).toMatchObject({ uuid: null, persistenceMode: null });
    }
    const r = parseNvidiaSmiXml(doc("Not-a-placeholder", "Enabled"));
    expect(r.ok && r.value.gpus[0]).toMatchObject({ uuid: "Not-a-placeholder", persistenceMode: true });
  });

  test("a truncated capture: what came before the cut is read, and the cut is a problem naming the line", () => {
    const xml = renderNvidiaSmiXml({
      driverVersion: "470.141.03",
      cudaVersion: "11.4",
      gpus: [gpu("00000000:53:00.0", 0)],
    });
    const r = parseNvidiaSmiXml(xml.slice(0, Math.floor(xml.length / 2)));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect([r.value.driverVersion, r.value.cudaVersion, r.value.gpus[0]?.busId]).toEqual([
      "470.141.03",
      "11.4",
      "0000:53:00.0",
    ]);
    expect(r.problems[0]?.code).toBe("nvidia_smi_xml.truncated");
    expect(r.problems[0]?.line).toBeGreaterThan(1);
    // Cut before its root began, it is no document at all.
    const none = parseNvidiaSmiXml(xml.slice(0, xml.indexOf("<nvidia_smi_log>") + 5));
    expect(none.ok).toBe(false);
    expect(none.problems[0]?.hint).toMatch(/nvidia-smi -q -x/);
  });

  test("an error message instead of XML is a problem", () => {
    const r = parseNvidiaSmiXml(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
    );
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.message).toMatch(/no <nvidia_smi_log>/);
  });

  test("bus ids are normalised to a 4-digit lower-case domain", () => {
    expect(normalizeBusId("00000000:CF:00.0")).toBe("0000:cf:00.0");
    expect(normalizeBusId("53:00.0")).toBe("0000:53:00.0");
    expect(normalizeBusId("GPU-53")).toBeNull();
  });
});

describe("the document amid a page's text", () => {
  // Shapes seen in https://github.com/netdata/netdata/issues/10362 (a `<details>` block) and
  // https://github.com/b3rs3rk/gpustat-unraid/issues/19 (a backtick before `<?xml`); this test's own GPU.
  const xml = renderNvidiaSmiXml({
    driverVersion: "535.54.03",
    cudaVersion: "12.2",
    gpus: [gpu("00000000:41:00.0", 0)],
  });
  for (const [name, text] of [
    ["inside a <details> block", `<details>\n<summary>nvidia-smi -q -x</summary>\n\n${xml}\n</details>\n`],
    ["after prose and a backtick", `here is the output\n\`${xml}\`\nthanks`],
  ] as const)
    test(`${name}: read from its declaration to its root's end tag`, () => {
      const r = parseNvidiaSmiXml(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect([r.value.driverVersion, r.value.cudaVersion, r.value.gpus.map((g) => g.busId)]).toEqual([
        "535.54.03",
        "12.2",
        ["0000:41:00.0"],
      ]);
    });
});

describe("fabric and clock event reasons", () => {
  // <fabric> with <state>/<status>/<cliqueId>/<clusterUuid> and <clocks_event_reasons> with one
  // <clocks_event_reason_NAME> per reason, as driver 550 prints them (nvsmi_device_v12.dtd); our own values.
  const doc = (inner: string) =>
    `<?xml version="1.0" ?>\n<nvidia_smi_log>\n<driver_version>550.90.07</driver_version>\n<attached_gpus>1</attached_gpus>\n` +
    `<gpu id="00000000:1B:00.0">\n<product_name>NVIDIA H100 80GB HBM3</product_name>\n${inner}</gpu>\n</nvidia_smi_log>\n`;

  test("state and status are read; N/A is no fabric; Active reasons are listed by name", () => {
    const r = parseNvidiaSmiXml(
      doc(
        "<fabric>\n<state>In Progress</state>\n<status>N/A</status>\n<cliqueId>N/A</cliqueId>\n</fabric>\n" +
          "<clocks_event_reasons>\n<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>\n" +
          "<clocks_event_reason_hw_thermal_slowdown>Active</clocks_event_reason_hw_thermal_slowdown>\n" +
          "</clocks_event_reasons>\n",
      ),
    );
    expect(r.ok && r.value.gpus[0]).toMatchObject({
      fabric: { state: "In Progress", status: null },
      clockEvents: ["hw_thermal_slowdown"],
    });
  });

  test("driver 535's <clocks_throttle_reasons> names are read the same; absent sections are null", () => {
    const r = parseNvidiaSmiXml(
      doc(
        "<fabric>\n<state>N/A</state>\n<status>N/A</status>\n</fabric>\n<clocks_throttle_reasons>\n" +
          "<clocks_throttle_reason_sw_power_cap>Active</clocks_throttle_reason_sw_power_cap>\n</clocks_throttle_reasons>\n",
      ),
    );
    expect(r.ok && r.value.gpus[0]).toMatchObject({ fabric: null, clockEvents: ["sw_power_cap"] });
    const none = parseNvidiaSmiXml(doc(""));
    expect(none.ok && none.value.gpus[0]).toMatchObject({ fabric: null, clockEvents: null });
  });
});

// A monitor's sample kept in a C# verbatim string, `@"<?xml version=""1.0"" ?>…"`: every quote doubled (shape seen in a
// C# source committed to a public repository, index-file 36072052080). Values ours.
describe("a document whose every quote a source string doubled", () => {
  const doc = [
    '    private const string sample = @"<?xml version=""1.0"" ?>',
    '<!DOCTYPE nvidia_smi_log SYSTEM ""nvsmi_device_v11.dtd"">',
    "<nvidia_smi_log>",
    "  <driver_version>515.65.01</driver_version>",
    "  <cuda_version>11.7</cuda_version>",
    "  <attached_gpus>1</attached_gpus>",
    '  <gpu id=""00000000:01:00.0"">',
    "    <product_name>Quadro P620</product_name>",
    "    <pci><pci_bus_id>00000000:01:00.0</pci_bus_id></pci>",
    "    <fb_memory_usage><total>2048 MiB</total></fb_memory_usage>",
    "  </gpu>",
    '</nvidia_smi_log>";',
  ].join("\n");

  test("reads as the document it holds", () => {
    const r = parseNvidiaSmiXml(doc);
    expect(r.ok && [r.value.driverVersion, r.value.cudaVersion, r.value.gpus.length]).toEqual(["515.65.01", "11.7", 1]);
  });

  test("a document with one quote not doubled is read as written (and refused when it is malformed)", () => {
    expect(parseNvidiaSmiXml(doc.replace('id=""00000000:01:00.0""', 'id="00000000:01:00.0""')).ok).toBe(false);
  });
});
