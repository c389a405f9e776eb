import { defineReport } from "../registry.js";

/** `device-plugin --dry-run`: what the plugin would advertise and answer on this node (the `-o json` object). */
export type DevicePluginPreview = {
  schemaVersion: 1;
  host: string;
  source: string;
  resource: string;
  socket: string;
  mode: string;
  /** `unhealthyBecause`: "port down", or the verbs device missing ("no /dev/infiniband/uverbs3"). */
  hcas: { name: string; numaNode: number | null; healthy: boolean; unhealthyBecause?: string }[];
  skipped: { hca: string; reason: string }[];
  devices: { count: number; healthy: number; first: unknown[] };
  allocate: {
    ids: string[];
    devices: { host_path: string; permissions: string }[];
    envs: Record<string, string>;
    /** Char devices of the answer that do not exist on the host (left out of `devices`). */
    missing: string[];
    /** Exclusive mode: why the kubelet would get an error instead of an answer; null when it would not. */
    refused: string | null;
    /** Warnings and errors `kube-rdma nccl-env` reports for the injected variables (an HCA left out, no usable GID). */
    envFindings: { code: string; severity: string; subject: string; message: string; fix: string }[];
  };
};

export const DEVICE_PLUGIN_REPORT = defineReport<DevicePluginPreview>({
  name: "device-plugin",
  text: (r) => {
    const lines = [
      `${r.resource} on ${r.host} (${r.source}), ${r.mode} mode, socket ${r.socket}`,
      `HCAs served: ${r.hcas.map((h) => `${h.name}${h.healthy ? "" : ` (${h.unhealthyBecause ?? "down"})`}${h.numaNode !== null ? ` numa${h.numaNode}` : ""}`).join(", ") || "none"}`,
      ...r.skipped.map((s) => `  left out: ${s.hca} — ${s.reason}`),
      `Advertised: ${r.devices.count} units, ${r.devices.healthy} healthy`,
      r.allocate.refused !== null
        ? `Allocate(${r.allocate.ids.join(",")}) would be refused: ${r.allocate.refused}`
        : `Allocate(${r.allocate.ids.join(",")}) would give:`,
      ...r.allocate.missing.map((p) => `  missing on the host, left out: ${p}`),
      ...r.allocate.devices.map((s) => `  ${s.host_path} (${s.permissions})`),
      ...Object.entries(r.allocate.envs).map(([k, v]) => `  ${k}=${v}`),
      ...r.allocate.envFindings.flatMap((f) => [
        `${f.severity.toUpperCase()} ${f.code} (${f.subject}): ${f.message}`,
        `  fix: ${f.fix}`,
      ]),
    ];
    return `${lines.join("\n")}\n`;
  },
  structured: (r) => r,
});
