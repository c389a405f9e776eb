/**
 * The plugin's own reads of the host through the same HostReader the node model is read with: port states for
 * health, the MAD char devices (`umadN`/`issmN`, not in the node model) and whether a char device still exists at
 * Allocate time. On a live host or a `--root` tree that is an FsHostReader under the root; on `--example` or
 * `--snapshot` it is the snapshot itself, so health agrees with the model instead of reading this machine's /sys.
 */
import { type FSWatcher, watch } from "node:fs";
import { naturalCompare, numericNames } from "../core/natural.js";
import { FsHostReader } from "../host/fs-reader.js";
import type { HostReader } from "../host/types.js";

import { isPortHealthy } from "./devices.js";

export type PortReading = {
  port: number;
  state: string | null;
  physState: string | null;
  healthy: boolean;
  /** `counters/link_downed` and `counters/link_error_recovery`; null when unreadable. */
  linkDowned: number | null;
  linkErrorRecovery: number | null;
};
export type HcaReading = {
  hca: string;
  present: boolean;
  ports: PortReading[];
  healthy: boolean;
  /** Verbs devices of the HCA missing under /dev/infiniband (unhealthy even with every port ACTIVE). */
  missingDevices?: string[];
  /** The node agent's error codes for this HCA (`--quarantine-file`): unhealthy while they last. */
  quarantined?: string[];
};

/** A reader whose host paths are files on this machine (a live host or a root tree), so they can be watched. */
type LocalReader = HostReader & { localPath(path: string): string };

function isLocal(reader: HostReader): reader is LocalReader {
  return typeof (reader as Partial<LocalReader>).localPath === "function";
}

export class HostFiles {
  private readonly reader: HostReader;

  /** `source`: a root directory (`/`, `/host`, a fixture tree), or the HostReader the node model is read with. */
  constructor(source: string | HostReader) {
    this.reader = typeof source === "string" ? new FsHostReader(source) : source;
  }

  /** Where a host path lives on this machine, or null when the host is not a directory tree (a snapshot). */
  at(hostPath: string): string | null {
    return isLocal(this.reader) ? this.reader.localPath(hostPath) : null;
  }

  text(hostPath: string): string | null {
    const r = this.reader.readText(hostPath);
    return r.ok ? r.value.trim() : null;
  }

  list(hostPath: string): string[] | null {
    const r = this.reader.list(hostPath);
    return r.ok ? r.value : null;
  }

  exists(hostPath: string): boolean {
    return this.reader.exists(hostPath);
  }

  /** The ibdevs present now (`/sys/class/infiniband`), in natural order; empty when the class dir is absent. */
  ibdevs(): string[] {
    return (this.list("/sys/class/infiniband") ?? []).sort(naturalCompare);
  }

  /** Reads every port of one HCA. An HCA whose directory vanished is not present and not healthy. */
  readHca(hca: string): HcaReading {
    const base = `/sys/class/infiniband/${hca}/ports`;
    const ports = this.list(base);
    if (ports === null) return { hca, present: false, ports: [], healthy: false };
    const readings = numericNames(ports).map((port): PortReading => {
      const state = this.text(`${base}/${port}/state`);
      const physState = this.text(`${base}/${port}/phys_state`);
      const counter = (name: string) => {
        const t = this.text(`${base}/${port}/counters/${name}`);
        return t !== null && /^\d+$/.test(t) ? Number(t) : null;
      };
      return {
        port,
        state,
        physState,
        healthy: isPortHealthy(state, physState),
        linkDowned: counter("link_downed"),
        linkErrorRecovery: counter("link_error_recovery"),
      };
    });
    return { hca, present: true, ports: readings, healthy: readings.length > 0 && readings.every((r) => r.healthy) };
  }

  /**
   * `umadN`/`issmN` per ibdev, from `/sys/class/infiniband_mad/<dev>/ibdev` (one pair per port, tech-spec §1.1).
   */
  madDevices(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const entries = this.list("/sys/class/infiniband_mad") ?? [];
    for (const entry of entries.filter((e) => /^(umad|issm)\d+$/.test(e)).sort(naturalCompare)) {
      const ibdev = this.text(`/sys/class/infiniband_mad/${entry}/ibdev`);
      if (!ibdev) continue;
      out.set(ibdev, [...(out.get(ibdev) ?? []), entry]);
    }
    return out;
  }
}

/**
 * Existence of char devices under /dev/infiniband for Allocate, cached and invalidated by an inotify watch on the
 * directory, so an Allocate costs map lookups instead of ~25 stat calls; without a working watch every lookup
 * stats the file.
 */
export class DeviceExistence {
  private readonly known = new Map<string, boolean>();
  private watcher: FSWatcher | null = null;

  constructor(private readonly files: HostFiles) {
    this.reset();
  }

  /**
   * Forgets what it knew and re-arms the watch (called on every health poll): a /dev/infiniband that was removed
   * and recreated by a driver reload gets a fresh watch, so the cache is never stale for longer than one interval.
   */
  reset(): void {
    this.close();
    const dir = this.files.at("/dev/infiniband");
    if (dir === null) return; // a snapshot does not change: every lookup asks it
    try {
      this.watcher = watch(dir, { persistent: false }, () => this.known.clear());
      this.watcher.on("error", () => this.close());
    } catch {
      this.watcher = null;
    }
  }

  exists(hostPath: string): boolean {
    if (!this.watcher) return this.files.exists(hostPath);
    let v = this.known.get(hostPath);
    if (v === undefined) {
      v = this.files.exists(hostPath);
      this.known.set(hostPath, v);
    }
    return v;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    this.known.clear();
  }
}
