/**
 * A device plugin started against a fake kubelet on the two-NUMA test node (8 data HCAs written as a --root tree),
 * with test timings: what the plugin tests that talk gRPC share. Each started piece pushes its own clean-up.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SELECTION } from "../../src/device-plugin/config.js";
import { memoryLogger } from "../../src/device-plugin/log.js";
import { type PluginConfig, RdmaDevicePlugin } from "../../src/device-plugin/plugin.js";
import { FakeKubelet, TEST_PLUGIN_TIMINGS } from "./fake-kubelet.js";
import { inventoryFor, twoNumaHcas, writeTree } from "./rdma-node.js";

export async function startedPlugin(
  cleanups: (() => Promise<void>)[],
  config: Partial<Omit<PluginConfig, "log" | "loadInventory" | "pluginDir" | "root">> & { mode: PluginConfig["mode"] },
) {
  const base = await mkdtemp(join(tmpdir(), "kube-rdma-dp-"));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const root = join(base, "host");
  const pluginDir = join(base, "device-plugins");
  const hcas = twoNumaHcas();
  await writeTree(root, hcas);
  await mkdir(pluginDir);
  const kubelet = new FakeKubelet(pluginDir);
  await kubelet.start();
  cleanups.push(() => kubelet.stop());
  const log = memoryLogger();
  const plugin = new RdmaDevicePlugin({
    ...TEST_PLUGIN_TIMINGS,
    pluginDir,
    root,
    sharedUnits: 10,
    sharedHealth: "all",
    selection: DEFAULT_SELECTION,
    registerTimeoutMs: 1000,
    loadInventory: async () => inventoryFor(hcas),
    deriveEnv: null,
    log,
    ...config,
  });
  cleanups.push(() => plugin.stop());
  await plugin.start();
  return { base, hcas, kubelet, log, plugin };
}
