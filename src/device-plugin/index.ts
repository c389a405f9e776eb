/** The kubelet RDMA device plugin: `kube-rdma device-plugin`. */
export { API_VERSION, DEFAULT_PLUGIN_DIR, loadApi } from "./api.js";
export { CONFIG_KEYS, DEFAULT_SELECTION, parseSelectionConfig, type Selection, selectHcas } from "./config.js";
export { deriveDeviceList, type Mode, type SharedHealthPolicy } from "./devices.js";
export { type ContainerEnvVar, mergeContainerEnv } from "./env-merge.js";
export { type Logger, lineLogger } from "./log.js";
export { renderDeviceManifests } from "./manifests.js";
export { buildNodeView, type DeriveEnv, type NodeView } from "./node-view.js";
export { type PluginConfig, PluginStartError, RdmaDevicePlugin } from "./plugin.js";
export { socketNameFor } from "./registration.js";
