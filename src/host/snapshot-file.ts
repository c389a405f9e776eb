/** A snapshot file (`--snapshot FILE`): read within its cap, gunzipped when it is gzip, parsed and checked. */
import { statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { UsageError } from "../cli/spec.js";
import { readBoundedSync } from "../core/bounded-read.js";
import { SNAPSHOT_VERSIONS_TEXT, snapshotDefect } from "./snapshot.js";
import { MAX_SNAPSHOT_BYTES } from "./snapshot-schema.js";
import type { Snapshot } from "./types.js";

/** Reads and checks a snapshot file; every failure is a UsageError that says what to do. */
export function loadSnapshot(path: string): Snapshot {
  let text: string;
  try {
    if (path !== "-") {
      const size = statSync(path).size;
      if (size > MAX_SNAPSHOT_BYTES) {
        throw new UsageError(
          `--snapshot ${path}: ${size} bytes, more than a snapshot can be (at most ${MAX_SNAPSHOT_BYTES}).`,
          "Pass the JSON file `kube-rdma collect -o FILE` wrote.",
        );
      }
    }
    const read = readBoundedSync(path === "-" ? 0 : path, MAX_SNAPSHOT_BYTES);
    if (!read.ok) {
      throw new UsageError(
        `--snapshot ${path === "-" ? "- (standard input)" : path}: more than a snapshot can be (at most ${MAX_SNAPSHOT_BYTES} bytes).`,
        "Pass the JSON file `kube-rdma collect -o FILE` wrote.",
      );
    }
    text = snapshotText(read.bytes, path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--snapshot ${path}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : `cannot read (${code ?? String(err)})`}.`,
      "Write one on the node with `kube-rdma collect -o node.json`, then pass that file.",
    );
  }
  if (text.trim() === "") {
    throw new UsageError(
      `--snapshot ${path === "-" ? "- (standard input)" : path}: empty.`,
      "The collect that should have written it failed or was cut off: run `kube-rdma collect -o FILE` on the node again and check its exit status.",
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `--snapshot ${path}: not JSON (${err instanceof Error ? err.message : String(err)}).`,
      "A snapshot is the JSON file `kube-rdma collect -o FILE` writes; collect it again if it was truncated.",
    );
  }
  const bad = snapshotDefect(data);
  if (bad?.defect === "kind") {
    throw new UsageError(
      `--snapshot ${path}: not a kube-rdma snapshot (expected "kind": "kube-rdma/snapshot").`,
      "Write one with `kube-rdma collect -o FILE`.",
    );
  }
  if (bad?.defect === "version") {
    throw new UsageError(
      `--snapshot ${path}: schemaVersion ${String(bad.version)} is not supported (this kube-rdma reads ${SNAPSHOT_VERSIONS_TEXT}).`,
      "Collect it again with this version of kube-rdma.",
    );
  }
  if (bad) {
    throw new UsageError(
      `--snapshot ${path}: not a valid snapshot: ${bad.message}.`,
      "Collect it again with `kube-rdma collect -o FILE`; docs/snapshot.schema.json says what each value must be.",
    );
  }
  return data as Snapshot;
}

/** A snapshot file's text: gzip (`collect -o - | gzip > node.json.gz`, or `collect -o node.json.gz`) or plain JSON. */
function snapshotText(bytes: Buffer, path: string): string {
  if (bytes.length > MAX_SNAPSHOT_BYTES) {
    throw new UsageError(
      `--snapshot ${path}: more than a snapshot can be (at most ${MAX_SNAPSHOT_BYTES} bytes).`,
      "Pass the JSON file `kube-rdma collect -o FILE` wrote.",
    );
  }
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.toString("utf8");
  try {
    // Capped like a plain snapshot: a small gzip file must not unpack into gigabytes.
    return gunzipSync(bytes, { maxOutputLength: MAX_SNAPSHOT_BYTES }).toString("utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new UsageError(
        `--snapshot ${path}: unpacks to more than a snapshot can be (at most ${MAX_SNAPSHOT_BYTES} bytes).`,
        "Pass the file `kube-rdma collect -o FILE` wrote.",
      );
    }
    throw new UsageError(
      `--snapshot ${path}: a gzip file that does not decompress (${err instanceof Error ? err.message : String(err)}).`,
      "The file is probably truncated; copy it again, or collect it again with `kube-rdma collect -o FILE`.",
    );
  }
}
