/**
 * Watches the device-plugins directory for a kubelet restart: the kubelet recreates kubelet.sock (a new inode) and
 * removes every other socket in the directory, ours included. fs.watch gives prompt events where inotify works;
 * a poll catches what it misses (overlay filesystems, a directory replaced under a hostPath mount).
 */
import { type FSWatcher, watch } from "node:fs";
import { stat } from "node:fs/promises";

/** The identity of a file: inode + birth/change time, or null when absent. */
export async function fileIdentity(path: string): Promise<string | null> {
  try {
    const s = await stat(path);
    return `${s.ino}:${s.ctimeMs}`;
  } catch {
    return null;
  }
}

export type DirWatch = { close(): void };

/** Calls `onChange` (debounced to one pending call) on any event in `dir` and every `pollMs`. */
export function watchDir(dir: string, pollMs: number, onChange: () => void): DirWatch {
  let watcher: FSWatcher | null = null;
  let pending: NodeJS.Timeout | null = null;
  const kick = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      onChange();
    }, 10);
  };
  try {
    watcher = watch(dir, { persistent: false }, kick);
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null; // the poll below still runs
  }
  const poll = setInterval(onChange, pollMs);
  poll.unref();
  return {
    close() {
      watcher?.close();
      clearInterval(poll);
      if (pending) clearTimeout(pending);
    },
  };
}
