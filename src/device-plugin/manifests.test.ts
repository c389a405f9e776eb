import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { MANIFEST_FILE, renderDeviceManifests } from "./manifests.js";

const repoRoot = join(import.meta.dirname, "..", "..");

describe("the DaemonSet manifests", () => {
  test("deploy/device-plugin/device-plugin.yaml is exactly what --print-manifests renders (no drift)", async () => {
    const onDisk = await readFile(join(repoRoot, MANIFEST_FILE), "utf8");
    expect(
      onDisk,
      "regenerate: kube-rdma device-plugin --print-manifests > deploy/device-plugin/device-plugin.yaml",
    ).toBe(renderDeviceManifests());
  });

  test("the plugin pod mounts the device-plugins dir, /sys read-only at /host/sys, /dev/infiniband, and reads --root /host", () => {
    const docs = parseAllDocuments(renderDeviceManifests()).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(["ServiceAccount", "DaemonSet"]);
    const spec = docs[1].spec.template.spec;
    const c = spec.containers[0];
    expect(c.args.slice(0, 3)).toEqual(["device-plugin", "--root", "/host"]);
    const mounts = Object.fromEntries(c.volumeMounts.map((m: { name: string }) => [m.name, m]));
    expect(mounts["device-plugins"]).toEqual({ name: "device-plugins", mountPath: "/var/lib/kubelet/device-plugins" });
    expect(mounts.sys).toEqual({ name: "sys", mountPath: "/host/sys", readOnly: true });
    expect(mounts["dev-infiniband"].mountPath).toBe("/host/dev/infiniband");
    const volumes = Object.fromEntries(
      spec.volumes.map((v: { name: string; hostPath: { path: string } }) => [v.name, v.hostPath.path]),
    );
    expect(volumes).toMatchObject({
      "device-plugins": "/var/lib/kubelet/device-plugins",
      sys: "/sys",
      "dev-infiniband": "/dev/infiniband",
    });
    expect(spec.tolerations.length).toBeGreaterThan(0);
    expect(spec.nodeSelector).toBeDefined();
    expect(c.resources.requests).toBeDefined();
  });

  test("a custom resource name and image reach the DaemonSet", () => {
    const docs = parseAllDocuments(renderDeviceManifests({ resource: "rdma/shared_ib", image: "reg.local/kr:1" })).map(
      (d) => d.toJS(),
    );
    const c = docs[1].spec.template.spec.containers[0];
    expect(c.image).toBe("reg.local/kr:1");
    expect(c.args).toContain("rdma/shared_ib");
  });
});

describe("the DaemonSet is hardened", () => {
  test("RuntimeDefault seccomp, every capability dropped, metrics on the node's 127.0.0.1 only", () => {
    const docs = parseAllDocuments(renderDeviceManifests()).map((d) => d.toJS());
    const spec = docs[1].spec.template.spec;
    const c = spec.containers[0];
    expect(spec.securityContext.seccompProfile).toEqual({ type: "RuntimeDefault" });
    expect(c.securityContext).toMatchObject({
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(c.args.slice(c.args.indexOf("--metrics-addr"), c.args.indexOf("--metrics-addr") + 2)).toEqual([
      "--metrics-addr",
      "127.0.0.1:9465",
    ]);
    expect(c.ports).toBeUndefined();
  });

  test("a digest-pinned image reaches the DaemonSet as given", () => {
    const image = `ghcr.io/kube-rdma/kube-rdma@sha256:${"ab".repeat(32)}`;
    const docs = parseAllDocuments(renderDeviceManifests({ image })).map((d) => d.toJS());
    expect(docs[1].spec.template.spec.containers[0].image).toBe(image);
  });
});
