import { existsSync } from "node:fs";

/**
 * Commands that must come from the node itself: their output is only true with the node's own driver stack
 * (nvidia-smi with the driver's NVML, ofed_info and mlnx_qos with the OFED/DOCA installed there).
 */
export const HOST_STACK_COMMANDS: ReadonlySet<string> = new Set(["nvidia-smi", "ofed_info", "mlnx_qos"]);

/**
 * Where a kube-rdma image keeps its own kernel-interface tools (`ip`, `ethtool`, `dcb`: they ask the node's kernel over
 * netlink and ioctl, which a host-network pod reaches, and need none of the host's libraries). Distributions put
 * them in /usr/sbin or /sbin, which a pod that mounts only the host's /usr/bin would never see.
 */
export const IMAGE_COMMAND_DIRS: readonly string[] = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/**
 * The absolute path a command runs from when the host's binaries are mounted at `hostDir` (`--host-commands`):
 * driver-stack tools from there; kernel-interface tools from the image's own directories when it has them, else from
 * `hostDir`. Without `hostDir`, or for a path, the command as given. Never through PATH. Pure given `exists`.
 */
export function commandPath(
  file: string,
  hostDir: string | undefined,
  imageDirs: readonly string[] = IMAGE_COMMAND_DIRS,
  exists: (path: string) => boolean = existsSync,
): string {
  if (hostDir === undefined || file.includes("/")) return file;
  const fromHost = `${hostDir.replace(/\/+$/, "")}/${file}`;
  if (HOST_STACK_COMMANDS.has(file)) return fromHost;
  for (const dir of imageDirs) {
    const p = `${dir.replace(/\/+$/, "")}/${file}`;
    if (exists(p)) return p;
  }
  return fromHost;
}
