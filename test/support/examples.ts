import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findExample } from "../../src/examples/index.js";
import { materializeSnapshot } from "../../src/examples/materialize.js";
import type { Snapshot } from "../../src/host/types.js";

export function exampleSnapshot(name: string): Snapshot {
  const e = findExample(name);
  if (!e) throw new Error(`no example ${name}`);
  return e.snapshot();
}

/** tmpfs when there is one: thousands of tiny sysfs-like files write much faster there than on disk. */
function scratchBase(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

/** Writes an example host as a real tree in a temp dir; call the returned cleanup when done. */
export function materializedExample(name: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(scratchBase(), `kube-rdma-${name}-`));
  materializeSnapshot(exampleSnapshot(name), dir);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
