/**
 * A device plugin against a fake kubelet on the two-NUMA test node (8 data HCAs written as a --root tree), with test
 * timings: what the plugin tests that talk gRPC share. Each piece pushes its own clean-up.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SELECTION } from "../../src/device-plugin/config.js";
import { memoryLogger } from "../../src/device-plugin/log.js";
import { type PluginConfig, RdmaDevicePlugin } from "../../src/device-plugin/plugin.js";
import { FakeKubelet, TEST_PLUGIN_TIMINGS } from "./fake-kubelet.js";
import { inventoryFor, type TreeHca, twoNumaHcas, writeTree } from "./rdma-node.js";

type Cleanups = (() => Promise<void>)[];

/** The plugin, not started; `setPresent` changes which HCAs its node model reads (unplug/replug). */
export async function testPlugin(cleanups: Cleanups, over: Partial<PluginConfig> = {}) {
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
  let present: readonly TreeHca[] = hcas;
  const plugin = new RdmaDevicePlugin({
    ...TEST_PLUGIN_TIMINGS,
    pluginDir,
    root,
    sharedUnits: 10,
    sharedHealth: "all",
    selection: DEFAULT_SELECTION,
    registerTimeoutMs: 1000,
    loadInventory: async () => inventoryFor(present),
    deriveEnv: null,
    log,
    ...over,
  } as PluginConfig);
  cleanups.push(() => plugin.stop());
  return {
    base,
    root,
    pluginDir,
    hcas,
    kubelet,
    log,
    plugin,
    present: () => present,
    setPresent: (next: readonly TreeHca[]) => {
      present = next;
    },
  };
}

/** The same plugin, started. */
export async function startedPlugin(cleanups: Cleanups, over: Partial<PluginConfig> & { mode: PluginConfig["mode"] }) {
  const r = await testPlugin(cleanups, over);
  await r.plugin.start();
  return r;
}
