export * from "./nvidia-smi-xml.js";
export * from "./ofed-info.js";
export * from "./proc.js";
export * from "./sysfs.js";
