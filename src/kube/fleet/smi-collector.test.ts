/**
 * fleet verify's collector pods run the host's nvidia-smi with NVIDIA_VISIBLE_DEVICES=void, where it usually cannot
 * load libnvidia-ml.so: every healthy node must not come back with DRIVER_NOT_RESPONDING.
 */
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";

const SMI = "nvidia-smi -q -x";
const names = ["gpu-a01", "gpu-a02", "gpu-a03", "gpu-a04"];

describe("fleet verify where the collectors cannot run nvidia-smi", () => {
  test("4 healthy nodes whose host nvidia-smi cannot load libnvidia-ml.so in the pod: no DRIVER_NOT_RESPONDING, each says the check could not run, one driver version fleet-wide", async () => {
    const base = await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const logs = new Map(
      names.map((host) => [
        host,
        JSON.stringify({
          ...base,
          host,
          commands: {
            ...base.commands,
            [SMI]: {
              command: SMI,
              exitCode: 127,
              stdout: "",
              stderr:
                "/host/usr/bin/nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n",
              ranFrom: "/host/usr/bin/nvidia-smi",
            },
          },
        }),
      ]),
    );
    const nodes: Obj[] = names.map((name) => node({ name, gpus: 8, rdma: "1k" }));
    const api = await startFakeApi(seedCluster({ nodes }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName)!, afterMs: 5 }),
    });
    try {
      const io = captureIo();
      const code = await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--timeout", "5", "--poll-interval", "10", "-o", "json"],
        io,
      );
      const r = JSON.parse(io.out) as {
        nodes: { node: string; findings: { code: string; subject: string; severity: string }[] }[];
        consistency: { name: string; majority: string; odd: unknown[] }[];
        findings: { code: string }[];
      };
      expect(r.nodes.map((n) => n.node).sort()).toEqual(names);
      for (const n of r.nodes) {
        expect(n.findings.filter((f) => f.code === "DRIVER_NOT_RESPONDING")).toEqual([]);
        expect(n.findings).toContainEqual(
          expect.objectContaining({ code: "CHECK_SKIPPED", subject: `${n.node}/nvidia-smi`, severity: "warning" }),
        );
      }
      expect(r.findings.map((f) => f.code)).not.toContain("DRIVER_NOT_RESPONDING");
      const driver = r.consistency.find((c) => /driver/i.test(c.name) || /^driver /.test(c.majority));
      expect(driver).toMatchObject({ majority: "driver 470.141.03", odd: [] });
      expect(code).toBe(0);
    } finally {
      await api.close();
    }
  });
});
