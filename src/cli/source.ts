import type { HostReader } from "../host/types.js";
import type { NodeInventory } from "../inventory/types.js";
import { num, type OptionValues, str, UsageError } from "./spec.js";

/** The host named by --root / --snapshot / --example (SOURCE_OPTIONS); more than one is a UsageError. */
export async function readerFromFlags(values: OptionValues): Promise<HostReader> {
  const { openReader } = await import("../host/open.js");
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
