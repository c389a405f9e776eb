/** Prometheus metrics of the plugin, on its own registry (never the process-global one). */
import { createServer, type Server } from "node:http";
import { Counter, Gauge, Registry } from "prom-client";

export type PluginMetrics = {
  registry: Registry;
  registered: Gauge;
  registrations: Counter<"result">;
  devices: Gauge<"health">;
  allocations: Counter;
  allocateErrors: Counter<"reason">;
  portFlaps: Counter<"hca">;
  withdrawn: Gauge<"hca">;
};

export function createMetrics(resource: string): PluginMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ resource });
  return {
    registry,
    registered: new Gauge({
      name: "kube_rdma_device_plugin_registered",
      help: "1 while the plugin is registered with the kubelet, 0 otherwise",
      registers: [registry],
    }),
    registrations: new Counter({
      name: "kube_rdma_device_plugin_registrations_total",
      help: "Registration attempts with the kubelet, by result (ok, error)",
      labelNames: ["result"],
      registers: [registry],
    }),
    devices: new Gauge({
      name: "kube_rdma_device_plugin_devices",
      help: "Advertised units by health (Healthy, Unhealthy)",
      labelNames: ["health"],
      registers: [registry],
    }),
    allocations: new Counter({
      name: "kube_rdma_device_plugin_allocations_total",
      help: "Container allocations answered",
      registers: [registry],
    }),
    allocateErrors: new Counter({
      name: "kube_rdma_device_plugin_allocate_errors_total",
      help: "Container allocations answered partially or refused, by reason (unknown_id, missing_device, invalid_request, internal)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    portFlaps: new Counter({
      name: "kube_rdma_device_plugin_port_flaps_total",
      help: "Link-down events (link_downed growth) seen between health polls, by HCA (PORT_FLAPPING in the log)",
      labelNames: ["hca"],
      registers: [registry],
    }),
    withdrawn: new Gauge({
      name: "kube_rdma_device_plugin_hca_withdrawn",
      help: "1 while the HCA is quarantined by the node agent and left out of shared units' Allocate answers, 0 once served again",
      labelNames: ["hca"],
      registers: [registry],
    }),
  };
}

/** `host:port`, `:port` or `port` → listen arguments. */
export function parseListenAddress(addr: string): { host: string; port: number } | null {
  const m = /^(?:(.*):)?(\d{1,5})$/.exec(addr.trim());
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  // No host given: this machine only (with hostNetwork, 0.0.0.0 would be every interface of the node).
  const host = m[1] === undefined || m[1] === "" ? "127.0.0.1" : m[1].replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

/** Headers a scrape needs, with room to spare; a longer request is refused before it is read. */
const MAX_HEADER_BYTES = 8 * 1024;

/**
 * Serves GET /metrics; resolves once listening. A scrape has no body: any request with one (or any other method)
 * is refused without reading it, so a client cannot make the plugin buffer anything; slow clients are cut off.
 */
export async function serveMetrics(registry: Registry, addr: { host: string; port: number }): Promise<Server> {
  const server = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: 10_000, headersTimeout: 5_000 },
    (req, res) => {
      const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
      if (hasBody || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(hasBody ? 413 : 405, { connection: "close" }).end();
        req.destroy();
        return;
      }
      if (req.url !== "/metrics") {
        res.writeHead(404).end("see /metrics\n");
        return;
      }
      registry.metrics().then(
        (body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(addr.port, addr.host, () => resolve());
  });
  return server;
}
