import type { Severity } from "../../core/finding.js";

/** Aggregates of one NCCL log; bounded whatever the input size (counts, capped maps, a few samples per kind). */

export const MAX_SAMPLES = 3;
export const MAX_KEYS = 4096;

export type LogDevice = { name: string; port: number; linkLayer: "IB" | "RoCE" | "Socket" };

export type WarnAggregate = {
  id: string;
  severity: Severity;
  cause: string;
  fix: string;
  count: number;
  samples: string[];
  hosts: Set<string>;
};

export type Connections = { net: number; netGdr: number; p2p: number; shm: number; socket: number; other: number };

export class LogState {
  lines = 0;
  ncclLines = 0;
  binaryLines = 0;
  cutLine: string | null = null;
  /** Process key (`host:pid`, or a launcher tag for bare lines) → NCCL version. */
  readonly versionOf = new Map<string, string>();
  readonly networkOf = new Map<string, string>();
  /** Distinct device lists (`mlx5_1:1,mlx5_2:1`, `socket:eth0`) → lines that printed them. */
  readonly deviceLists = new Map<string, number>();
  readonly hosts = new Set<string>();
  readonly devices = new Map<string, LogDevice>();
  readonly oob = new Map<string, number>();
  readonly bootstrap = new Map<string, number>();
  readonly env = new Map<string, string>();
  readonly conn: Connections = { net: 0, netGdr: 0, p2p: 0, shm: 0, socket: 0, other: 0 };
  /** Network connections by transport: the internal IB one counted apart (the common case), others by name. */
  ibConns = 0;
  readonly netNames = new Map<string, number>();
  readonly warnings = new Map<string, WarnAggregate>();
  readonly gdrDisabledSamples: string[] = [];
  gdrDisabled = 0;
  noDeviceFound = 0;
  initComplete = 0;
  readonly completedRanks = new Set<number>();
  nranks = 0;
  nNodes = 0;
  localRanks = 0;
  unattributed = 0;
}

/** Adds to a capped counter map (new keys beyond the cap are dropped: memory stays bounded). */
export function bump(m: Map<string, number>, key: string, by = 1): void {
  const cur = m.get(key);
  if (cur !== undefined) m.set(key, cur + by);
  else if (m.size < MAX_KEYS) m.set(key, by);
}

export function setCapped<V>(m: Map<string, V>, key: string, value: V): void {
  if (m.has(key) || m.size < MAX_KEYS) m.set(key, value);
}
