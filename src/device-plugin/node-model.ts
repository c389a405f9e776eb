import type { Logger } from "./log.js";
import { buildNodeView, type NodeView } from "./node-view.js";
import type { PluginConfig } from "./plugin-config.js";
import type { HostFiles } from "./sysfs.js";

type NodeModelConfig = Pick<
  PluginConfig,
  "loadInventory" | "mad" | "mode" | "selection" | "sharedUnits" | "deriveEnv"
> & { log: Logger };

/**
 * The plugin's view of its node (which HCAs it serves, their NCCL variables), read again on demand: at start, when
 * HCAs appear or vanish, when a port changes state, periodically. A read that fails keeps the previous view and is
 * logged once per distinct error, not at every retry.
 */
export class NodeModel {
  view: NodeView | null = null;
  private refreshing: Promise<void> | null = null;
  private nodeError: string | null = null;

  constructor(
    private readonly cfg: NodeModelConfig,
    private readonly files: HostFiles,
  ) {}

  /** Re-reads the node model; concurrent calls share one read. */
  refresh(reason: string): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.read(reason).finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async read(reason: string): Promise<void> {
    try {
      const inv = await this.cfg.loadInventory();
      const madDevices = this.cfg.mad ? this.files.madDevices() : new Map<string, string[]>();
      if (this.cfg.mad && madDevices.size === 0 && this.view === null) {
        this.cfg.log.warn("--mad: no umad/issm devices in /sys/class/infiniband_mad (is ib_umad loaded?)", {});
      }
      const view = buildNodeView(inv, {
        mode: this.cfg.mode,
        selection: this.cfg.selection,
        sharedUnits: this.cfg.sharedUnits,
        mad: this.cfg.mad,
        madDevices,
        deriveEnv: this.cfg.deriveEnv,
      });
      view.plan.envFor(view.hcas.map((h) => h.name)); // precompute the common answer now, not in the first Allocate
      const before = this.view?.hcas.map((h) => h.name).join(",");
      this.view = view;
      const after = view.hcas.map((h) => h.name).join(",");
      if (before !== after) {
        this.cfg.log.info("serving HCAs", {
          reason,
          mode: this.cfg.mode,
          hcas: view.hcas.map((h) => h.name),
          skipped: view.skipped.map((s) => `${s.hca}: ${s.reason}`),
        });
        if (view.hcas.length === 0) {
          // Expected on a node without RDMA NICs (the DaemonSet runs on every Linux node): information, not a warning.
          this.cfg.log.info("no HCA to serve on this node: advertising no devices", { source: inv.source });
        }
      }
      if (this.nodeError !== null) this.cfg.log.info("node model read again", { reason });
      this.nodeError = null;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      // Retried every health interval until it works: log a failure once, not every 2 s.
      if (error !== this.nodeError) {
        this.cfg.log.error(
          this.view
            ? "could not read the node model; keeping the previous one"
            : "could not read the node model; advertising nothing until it can be read",
          { reason, error },
        );
      }
      this.nodeError = error;
    }
  }
}
