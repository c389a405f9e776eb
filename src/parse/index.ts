/** Pure parsers: text in, typed data and problems out. One module per format. */
export * from "./ibdev2netdev.js";
export * from "./ibstat.js";
export * from "./ibv-devinfo.js";
export * from "./nvidia-smi-table.js";
export * from "./nvidia-smi-topo.js";
export * from "./nvidia-smi-xml.js";
export * from "./ofed-info.js";
export * from "./proc.js";
export * from "./show-gids.js";
export * from "./sysfs.js";
