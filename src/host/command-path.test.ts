import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commandPath } from "./command-path.js";
import { FsHostReader } from "./fs-reader.js";

/*
 * A collector pod mounts only the node's /usr/bin (deploy/fleet/admission-policy.yaml). Debian 12 ships ethtool and
 * iproute2's dcb in /sbin (= /usr/sbin on a merged-/usr system; `dpkg -c` of ethtool 1:6.1-1 and iproute2 6.1.0-3,
 * https://packages.debian.org/bookworm/ethtool), so looked for in the host's /usr/bin they were never found and the
 * port-counter check was skipped on every node. ETHTOOL_GSTATS needs no capability (the kernel's ethtool ioctl lets
 * anyone run it: "Allow some commands to be done by anyone", net/ethtool/ioctl.c __dev_ethtool,
 * https://github.com/torvalds/linux/blob/master/net/ethtool/ioctl.c), so the image's own ethtool serves.
 */
describe("where a command runs from under --host-commands", () => {
  const has =
    (...paths: string[]) =>
    (p: string) =>
      paths.includes(p);

  test("the driver stack's own tools come from the host mount, whatever the image has", () => {
    const exists = has("/usr/bin/nvidia-smi", "/usr/sbin/ofed_info");
    expect(commandPath("nvidia-smi", "/host/usr/bin", undefined, exists)).toBe("/host/usr/bin/nvidia-smi");
    expect(commandPath("ofed_info", "/host/usr/bin/", undefined, exists)).toBe("/host/usr/bin/ofed_info");
    expect(commandPath("mlnx_qos", "/host/usr/bin", undefined, exists)).toBe("/host/usr/bin/mlnx_qos");
  });

  test("kernel-interface tools come from the image's sbin/bin when it has them, else from the host mount", () => {
    expect(commandPath("ethtool", "/host/usr/bin", undefined, has("/usr/sbin/ethtool"))).toBe("/usr/sbin/ethtool");
    expect(commandPath("dcb", "/host/usr/bin", undefined, has("/sbin/dcb"))).toBe("/sbin/dcb");
    expect(commandPath("ip", "/host/usr/bin", undefined, has())).toBe("/host/usr/bin/ip");
  });

  test("without --host-commands, or given a path, the command as given (a host run)", () => {
    expect(commandPath("ethtool", undefined, undefined, has("/usr/sbin/ethtool"))).toBe("ethtool");
    expect(commandPath("/opt/x/ethtool", "/host/usr/bin", undefined, has())).toBe("/opt/x/ethtool");
  });

  test("the reader runs each from there and records where it ran", async () => {
    const base = mkdtempSync(join(tmpdir(), "kr-cmdpath-"));
    const hostBin = join(base, "host-usr-bin");
    const imageSbin = join(base, "image-sbin");
    mkdirSync(hostBin);
    mkdirSync(imageSbin);
    const script = (dir: string, name: string, says: string) => {
      writeFileSync(join(dir, name), `#!/bin/sh\necho ${says}\n`);
      chmodSync(join(dir, name), 0o755);
    };
    script(hostBin, "ofed_info", "from-host");
    script(hostBin, "ethtool", "host-ethtool");
    script(imageSbin, "ethtool", "image-ethtool");
    script(imageSbin, "ofed_info", "image-ofed");
    const reader = new FsHostReader(join(base, "root"), 5000, { commandDir: hostBin, imageCommandDirs: [imageSbin] });
    const ofed = await reader.run("ofed_info", ["-s"]);
    const eth = await reader.run("ethtool", ["-S", "eth0"]);
    expect(ofed).toMatchObject({ command: "ofed_info -s", stdout: "from-host\n", ranFrom: join(hostBin, "ofed_info") });
    expect(eth).toMatchObject({
      command: "ethtool -S eth0",
      stdout: "image-ethtool\n",
      ranFrom: join(imageSbin, "ethtool"),
    });
  });
});
