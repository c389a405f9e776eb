/** Writes `nvidia-smi -q -x` documents in the driver's own layout, for the example hosts and benches. */

export type XmlGpuSpec = {
  /** `00000000:53:00.0` as nvidia-smi prints it. */
  busId: string;
  name: string;
  uuid: string;
  memoryTotalMiB: number;
  serial?: string;
  minorNumber: number;
  pcieGen?: { max: number; current: number };
  pcieWidth?: { max: number; current: number };
  eccVolatileUncorrectable?: number;
  eccAggregateUncorrectable?: number;
  remapped?: { corr: number; unc: number; pending: boolean; failure: boolean };
  powerLimitW?: number;
  /** `<fabric>` State and Status (drivers since R530 print the block; absent: not printed, as on driver 470). */
  fabric?: { state: string; status: string };
  /** `<clocks_event_reasons>` (driver 535+ names): reason → Active; absent: the block is not printed. */
  clockEvents?: Record<string, boolean>;
};

export type XmlDocSpec = {
  driverVersion: string;
  cudaVersion: string;
  timestamp?: string;
  /** `ampere`: sram/dram ECC counters and remapped rows; `legacy`: single_bit/double_bit and retired pages. */
  layout?: "ampere" | "legacy";
  gpus: XmlGpuSpec[];
};

const yes = (b: boolean) => (b ? "Yes" : "No");

function eccBlock(tag: string, unc: number, layout: "ampere" | "legacy"): string {
  if (layout === "legacy") {
    const bits = (t: string, n: number) =>
      `\t\t\t\t<${t}>\n\t\t\t\t\t<device_memory>${n}</device_memory>\n\t\t\t\t\t<register_file>0</register_file>\n` +
      `\t\t\t\t\t<l1_cache>0</l1_cache>\n\t\t\t\t\t<l2_cache>0</l2_cache>\n\t\t\t\t\t<texture_memory>N/A</texture_memory>\n` +
      `\t\t\t\t\t<texture_shm>N/A</texture_shm>\n\t\t\t\t\t<cbu>N/A</cbu>\n\t\t\t\t\t<total>${n}</total>\n\t\t\t\t</${t}>\n`;
    return `\t\t\t<${tag}>\n${bits("single_bit", 0)}${bits("double_bit", unc)}\t\t\t</${tag}>\n`;
  }
  return (
    `\t\t\t<${tag}>\n\t\t\t\t<sram_correctable>0</sram_correctable>\n\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>\n` +
    `\t\t\t\t<dram_correctable>0</dram_correctable>\n\t\t\t\t<dram_uncorrectable>${unc}</dram_uncorrectable>\n\t\t\t</${tag}>\n`
  );
}

function gpuXml(g: XmlGpuSpec, layout: "ampere" | "legacy"): string {
  const [, bus = "00", devFn = "00.0"] = g.busId.split(":");
  const gen = g.pcieGen ?? { max: 4, current: 4 };
  const width = g.pcieWidth ?? { max: 16, current: 16 };
  const rr = g.remapped ?? { corr: 0, unc: 0, pending: false, failure: false };
  const retired =
    layout === "legacy"
      ? "\t\t<retired_pages>\n\t\t\t<multiple_single_bit_retirement>\n\t\t\t\t<retired_count>0</retired_count>\n" +
        "\t\t\t\t<retired_pagelist>\n\t\t\t\t</retired_pagelist>\n\t\t\t</multiple_single_bit_retirement>\n" +
        "\t\t\t<double_bit_retirement>\n\t\t\t\t<retired_count>0</retired_count>\n\t\t\t\t<retired_pagelist>\n" +
        "\t\t\t\t</retired_pagelist>\n\t\t\t</double_bit_retirement>\n\t\t\t<pending_blacklist>No</pending_blacklist>\n" +
        "\t\t\t<pending_retirement>No</pending_retirement>\n\t\t</retired_pages>\n"
      : "\t\t<retired_pages>N/A</retired_pages>\n";
  const remapped =
    layout === "ampere"
      ? `\t\t<remapped_rows>\n\t\t\t<remapped_row_corr>${rr.corr}</remapped_row_corr>\n` +
        `\t\t\t<remapped_row_unc>${rr.unc}</remapped_row_unc>\n` +
        `\t\t\t<remapped_row_pending>${yes(rr.pending)}</remapped_row_pending>\n` +
        `\t\t\t<remapped_row_failure>${yes(rr.failure)}</remapped_row_failure>\n` +
        "\t\t\t<remapped_row_histogram>\n\t\t\t\t<row_remap_histogram_max>639 bank(s)</row_remap_histogram_max>\n" +
        "\t\t\t\t<row_remap_histogram_high>1 bank(s)</row_remap_histogram_high>\n" +
        "\t\t\t\t<row_remap_histogram_partial>0 bank(s)</row_remap_histogram_partial>\n" +
        "\t\t\t\t<row_remap_histogram_low>0 bank(s)</row_remap_histogram_low>\n" +
        "\t\t\t\t<row_remap_histogram_none>0 bank(s)</row_remap_histogram_none>\n\t\t\t</remapped_row_histogram>\n" +
        "\t\t</remapped_rows>\n"
      : "\t\t<remapped_rows>N/A</remapped_rows>\n";
  const power = g.powerLimitW ?? 400;
  return (
    `\t<gpu id="${g.busId}">\n` +
    `\t\t<product_name>${g.name}</product_name>\n\t\t<product_brand>NVIDIA</product_brand>\n` +
    `\t\t<product_architecture>Ampere</product_architecture>\n` +
    "\t\t<display_mode>Enabled</display_mode>\n\t\t<display_active>Disabled</display_active>\n" +
    "\t\t<persistence_mode>Enabled</persistence_mode>\n" +
    "\t\t<mig_mode>\n\t\t\t<current_mig>Disabled</current_mig>\n\t\t\t<pending_mig>Disabled</pending_mig>\n\t\t</mig_mode>\n" +
    "\t\t<mig_devices>\n\t\t\tNone\n\t\t</mig_devices>\n" +
    "\t\t<accounting_mode>Disabled</accounting_mode>\n\t\t<accounting_mode_buffer_size>4000</accounting_mode_buffer_size>\n" +
    "\t\t<driver_model>\n\t\t\t<current_dm>N/A</current_dm>\n\t\t\t<pending_dm>N/A</pending_dm>\n\t\t</driver_model>\n" +
    `\t\t<serial>${g.serial ?? `132302${String(1000000 + g.minorNumber).slice(1)}`}</serial>\n` +
    `\t\t<uuid>${g.uuid}</uuid>\n\t\t<minor_number>${g.minorNumber}</minor_number>\n` +
    "\t\t<vbios_version>92.00.45.00.03</vbios_version>\n\t\t<multigpu_board>No</multigpu_board>\n" +
    `\t\t<board_id>0x${bus.toLowerCase()}00</board_id>\n\t\t<gpu_part_number>692-2G506-0212-002</gpu_part_number>\n` +
    "\t\t<pci>\n" +
    `\t\t\t<pci_bus>${bus}</pci_bus>\n\t\t\t<pci_device>${devFn.split(".")[0]}</pci_device>\n` +
    "\t\t\t<pci_domain>0000</pci_domain>\n\t\t\t<pci_device_id>20B210DE</pci_device_id>\n" +
    `\t\t\t<pci_bus_id>${g.busId}</pci_bus_id>\n\t\t\t<pci_sub_system_id>147F10DE</pci_sub_system_id>\n` +
    "\t\t\t<pci_gpu_link_info>\n" +
    `\t\t\t\t<pcie_gen>\n\t\t\t\t\t<max_link_gen>${gen.max}</max_link_gen>\n` +
    `\t\t\t\t\t<current_link_gen>${gen.current}</current_link_gen>\n\t\t\t\t</pcie_gen>\n` +
    `\t\t\t\t<link_widths>\n\t\t\t\t\t<max_link_width>${width.max}x</max_link_width>\n` +
    `\t\t\t\t\t<current_link_width>${width.current}x</current_link_width>\n\t\t\t\t</link_widths>\n` +
    "\t\t\t</pci_gpu_link_info>\n" +
    "\t\t\t<pci_bridge_chip>\n\t\t\t\t<bridge_chip_type>N/A</bridge_chip_type>\n" +
    "\t\t\t\t<bridge_chip_fw>N/A</bridge_chip_fw>\n\t\t\t</pci_bridge_chip>\n" +
    "\t\t\t<replay_counter>0</replay_counter>\n\t\t\t<replay_rollover_counter>0</replay_rollover_counter>\n" +
    "\t\t\t<tx_util>0 KB/s</tx_util>\n\t\t\t<rx_util>0 KB/s</rx_util>\n\t\t</pci>\n" +
    "\t\t<fan_speed>N/A</fan_speed>\n\t\t<performance_state>P0</performance_state>\n" +
    `\t\t<fb_memory_usage>\n\t\t\t<total>${g.memoryTotalMiB} MiB</total>\n\t\t\t<used>0 MiB</used>\n` +
    `\t\t\t<free>${g.memoryTotalMiB} MiB</free>\n\t\t</fb_memory_usage>\n` +
    "\t\t<bar1_memory_usage>\n\t\t\t<total>131072 MiB</total>\n\t\t\t<used>1 MiB</used>\n" +
    "\t\t\t<free>131071 MiB</free>\n\t\t</bar1_memory_usage>\n" +
    "\t\t<compute_mode>Default</compute_mode>\n" +
    "\t\t<utilization>\n\t\t\t<gpu_util>0 %</gpu_util>\n\t\t\t<memory_util>0 %</memory_util>\n" +
    "\t\t\t<encoder_util>0 %</encoder_util>\n\t\t\t<decoder_util>0 %</decoder_util>\n\t\t</utilization>\n" +
    "\t\t<ecc_mode>\n\t\t\t<current_ecc>Enabled</current_ecc>\n\t\t\t<pending_ecc>Enabled</pending_ecc>\n\t\t</ecc_mode>\n" +
    "\t\t<ecc_errors>\n" +
    eccBlock("volatile", g.eccVolatileUncorrectable ?? 0, layout) +
    eccBlock("aggregate", g.eccAggregateUncorrectable ?? 0, layout) +
    "\t\t</ecc_errors>\n" +
    retired +
    remapped +
    "\t\t<temperature>\n\t\t\t<gpu_temp>29 C</gpu_temp>\n\t\t\t<gpu_temp_max_threshold>92 C</gpu_temp_max_threshold>\n" +
    "\t\t\t<gpu_temp_slow_threshold>89 C</gpu_temp_slow_threshold>\n\t\t\t<memory_temp>39 C</memory_temp>\n" +
    "\t\t</temperature>\n" +
    "\t\t<power_readings>\n\t\t\t<power_state>P0</power_state>\n\t\t\t<power_management>Supported</power_management>\n" +
    `\t\t\t<power_draw>62.17 W</power_draw>\n\t\t\t<power_limit>${power}.00 W</power_limit>\n` +
    `\t\t\t<default_power_limit>${power}.00 W</default_power_limit>\n` +
    `\t\t\t<enforced_power_limit>${power}.00 W</enforced_power_limit>\n` +
    `\t\t\t<min_power_limit>100.00 W</min_power_limit>\n\t\t\t<max_power_limit>${power}.00 W</max_power_limit>\n` +
    "\t\t</power_readings>\n" +
    "\t\t<clocks>\n\t\t\t<graphics_clock>1410 MHz</graphics_clock>\n\t\t\t<sm_clock>1410 MHz</sm_clock>\n" +
    "\t\t\t<mem_clock>1593 MHz</mem_clock>\n\t\t\t<video_clock>1275 MHz</video_clock>\n\t\t</clocks>\n" +
    fabricXml(g.fabric) +
    clockEventsXml(g.clockEvents) +
    "\t\t<processes>\n\t\t</processes>\n\t\t<accounted_processes>\n\t\t</accounted_processes>\n" +
    "\t</gpu>\n"
  );
}

// Layout as driver 535+/550 print it: <fabric> after the clock sections with <state>, <status>, <cliqueId>,
// <clusterUuid>; <clocks_event_reasons> with one <clocks_event_reason_NAME>Active|Not Active</…> per reason.
function fabricXml(f: XmlGpuSpec["fabric"]): string {
  if (!f) return "";
  return (
    `\t\t<fabric>\n\t\t\t<state>${f.state}</state>\n\t\t\t<status>${f.status}</status>\n` +
    "\t\t\t<cliqueId>N/A</cliqueId>\n\t\t\t<clusterUuid>N/A</clusterUuid>\n\t\t</fabric>\n"
  );
}

function clockEventsXml(reasons: XmlGpuSpec["clockEvents"]): string {
  if (!reasons) return "";
  const rows = Object.entries(reasons).map(
    ([name, active]) =>
      `\t\t\t<clocks_event_reason_${name}>${active ? "Active" : "Not Active"}</clocks_event_reason_${name}>\n`,
  );
  return `\t\t<clocks_event_reasons>\n${rows.join("")}\t\t</clocks_event_reasons>\n`;
}

/** The whole document, with the XML declaration and DOCTYPE line nvidia-smi prints. */
export function renderNvidiaSmiXml(spec: XmlDocSpec): string {
  const layout = spec.layout ?? "ampere";
  return (
    '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v11.dtd">\n<nvidia_smi_log>\n' +
    `\t<timestamp>${spec.timestamp ?? "Wed Dec  2 11:00:00 2026"}</timestamp>\n` +
    `\t<driver_version>${spec.driverVersion}</driver_version>\n\t<cuda_version>${spec.cudaVersion}</cuda_version>\n` +
    `\t<attached_gpus>${spec.gpus.length}</attached_gpus>\n` +
    spec.gpus.map((g) => gpuXml(g, layout)).join("") +
    "</nvidia_smi_log>\n"
  );
}
