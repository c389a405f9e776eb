import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";
import { validateCoreObject } from "./support/kube/schemas.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

const docsOf = (yaml: string): Any[] => parseAllDocuments(yaml).map((d) => d.toJS());

describe("device-plugin --print-manifests runs the plugin the way the line asks", () => {
  test("--mode exclusive --mad --network host --metrics-addr 0.0.0.0:9465 --config hcas.yaml reach the DaemonSet (they were dropped: the plugin served shared mode on 127.0.0.1); the config ships as a ConfigMap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-dp-manifests-"));
    const config = join(dir, "hcas.yaml");
    writeFileSync(config, 'names: ["mlx5_[1-8]"]\n');
    const io = captureIo();
    const argv = ["device-plugin", "--print-manifests", "--mode", "exclusive", "--mad", "--network", "host"];
    expect(await main([...argv, "--metrics-addr", "0.0.0.0:9465", "--config", config], io)).toBe(0);
    const docs = docsOf(io.out);
    expect(docs.map((d) => d.kind)).toEqual(["ServiceAccount", "ConfigMap", "DaemonSet"]);
    for (const d of docs) expect(validateCoreObject(d), d.kind).toEqual([]);
    expect(docs[1].data).toEqual({ "hcas.yaml": 'names: ["mlx5_[1-8]"]\n' });
    const pod = docs[2].spec.template.spec;
    const args: string[] = pod.containers[0].args;
    expect(args.join(" ")).toBe(
      "device-plugin --root /host --metrics-addr 0.0.0.0:9465 --quarantine-file /var/lib/kube-rdma/quarantine.json --config /etc/kube-rdma/hcas.yaml --mode exclusive --mad --network host",
    );
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: "config",
      mountPath: "/etc/kube-rdma",
      readOnly: true,
    });
    expect(pod.volumes).toContainEqual({ name: "config", configMap: { name: "kube-rdma-device-plugin-config" } });
  });

  test("a bad serving value, a namespace Kubernetes refuses, or a node preview flag is exit 2, not a manifest", async () => {
    for (const [extra, says] of [
      [["--shared-units", "0"], "--shared-units expects a whole number"],
      [["--namespace", "Bad_NS"], "--namespace expects a Kubernetes namespace name"],
      [["--dry-run"], "--dry-run is for looking at one node now"],
      [["--example", "a100-8x-roce"], "--example is for looking at one node now"],
    ] as const) {
      const io = captureIo();
      expect(await main(["device-plugin", "--print-manifests", ...extra], io), extra.join(" ")).toBe(2);
      expect(io.out).toBe("");
      expect(io.err).toContain(says);
    }
  });
});
