import { openReader } from "../host/open.js";
import type { HostReader } from "../host/types.js";
import type { NodeInventory } from "../inventory/types.js";
import { num, type OptionValues, str, UsageError } from "./spec.js";

/** The host named by --root / --snapshot / --example (SOURCE_OPTIONS); more than one is a UsageError. */
export async function readerFromFlags(values: OptionValues): Promise<HostReader> {
  const seconds = num(values, "command-timeout");
  if (seconds !== undefined && !(seconds > 0)) {
    throw new UsageError(`--command-timeout must be a positive number of seconds; got ${seconds}.`);
  }
  const root = str(values, "root");
  const snapshot = str(values, "snapshot");
  const example = str(values, "example");
  return openReader({
    ...(root !== undefined ? { root } : {}),
    ...(snapshot !== undefined ? { snapshot } : {}),
    ...(example !== undefined ? { example } : {}),
    ...(seconds !== undefined ? { commandTimeoutMs: seconds * 1000 } : {}),
    ...(str(values, "host-commands") !== undefined ? { commandDir: str(values, "host-commands")! } : {}),
    ...(values["own-proc"] === true ? { ownProc: true } : {}),
  });
}

/** Reads the host the flags name and builds its node model. */
export async function inventoryFromFlags(values: OptionValues): Promise<NodeInventory> {
  const reader = await readerFromFlags(values);
  const { readInventory } = await import("../inventory/index.js");
  const seconds = num(values, "command-timeout");
  return readInventory(reader, seconds !== undefined ? { commandTimeoutMs: seconds * 1000 } : {});
}

/**
 * Reads the host the flags name twice, `seconds` apart (`verify --watch`): an example answers its later reading
 * (what changed meanwhile), a live host or --root tree is read again; a snapshot never changes, so it is refused.
 */
export async function inventoriesFromFlags(
  values: OptionValues,
  seconds: number,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ before: NodeInventory; after: NodeInventory }> {
  if (str(values, "snapshot") !== undefined) {
    throw new UsageError(
      "--watch reads the host twice, but a snapshot never changes.",
      "Run --watch on the node itself (or with --root /host in a DaemonSet pod), or on an --example.",
    );
  }
  const reader = await readerFromFlags(values);
  const { readInventory } = await import("../inventory/index.js");
  const timeout = num(values, "command-timeout");
  const readOpts = timeout !== undefined ? { commandTimeoutMs: timeout * 1000 } : {};
  const before = await readInventory(reader, readOpts);
  await sleep(seconds * 1000);
  const example = str(values, "example");
  let again = reader;
  if (example !== undefined) {
    const { findExample } = await import("../examples/index.js");
    const { SnapshotHostReader } = await import("../host/snapshot-reader.js");
    const later = findExample(example)?.later;
    if (later) again = new SnapshotHostReader(later(), `example ${example} (${seconds} s later)`);
  }
  return { before, after: await readInventory(again, readOpts) };
}
