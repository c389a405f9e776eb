import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../cli/spec.js";
import { FsHostReader } from "./fs-reader.js";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "./paths.js";
import type { HostReader } from "./types.js";

export type OpenOptions = {
  root?: string;
  snapshot?: string;
  example?: string;
  commandTimeoutMs?: number;
  /** See FsReaderOptions: commands by absolute path from this directory; /proc from this process. */
  commandDir?: string;
  ownProc?: boolean;
};

/** Opens the host the flags name: an example, a snapshot file, a root tree, or the live host at `/`. */
export async function openReader(opts: OpenOptions): Promise<HostReader> {
  const given = (["root", "snapshot", "example"] as const).filter((k) => opts[k] !== undefined);
  if (given.length > 1) {
    throw new UsageError(
      `--${given.join(" and --")} name different hosts; give one of --root, --snapshot or --example.`,
    );
  }
  if (opts.example !== undefined) return openExample(opts.example);
  // A snapshot's reader, checks and gunzip load only for a snapshot: `gids --root` starts without them.
  if (opts.snapshot !== undefined) {
    const [{ loadSnapshot }, { SnapshotHostReader }] = await Promise.all([
      import("./snapshot-file.js"),
      import("./snapshot-reader.js"),
    ]);
    return new SnapshotHostReader(loadSnapshot(opts.snapshot), `snapshot ${opts.snapshot}`);
  }
  const root = opts.root ?? "/";
  if (opts.root !== undefined) {
    const dir = resolve(root);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new UsageError(
        `--root ${root}: no such directory.`,
        "Point --root at a mounted host (e.g. /host) or a copy of a node's /sys, /proc and /dev; or replay a `kube-rdma collect` file with --snapshot.",
      );
    }
  }
  return new FsHostReader(root, opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, {
    ...(opts.commandDir !== undefined ? { commandDir: opts.commandDir } : {}),
    ...(opts.ownProc ? { ownProc: true } : {}),
  });
}

async function openExample(name: string): Promise<HostReader> {
  const [{ findExample, listExamples }, { SnapshotHostReader }] = await Promise.all([
    import("../examples/index.js"),
    import("./snapshot-reader.js"),
  ]);
  const ex = findExample(name);
  if (!ex) {
    throw new UsageError(
      `unknown example "${name}".`,
      `Known examples: ${listExamples()
        .map((e) => e.name)
        .join(", ")}. Run \`kube-rdma examples\` for what each shows.`,
    );
  }
  return new SnapshotHostReader(ex.snapshot(), `example ${name}`);
}
