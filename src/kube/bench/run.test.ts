import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, test } from "vitest";
import type { BenchJob } from "../../fabric/types.js";
import { failedCondition, launcherState, wavesOf } from "./run.js";

/**
 * Pod status shapes as the API server returns them (PodStatus.containerStatuses: restartCount, state.waiting.reason
 * CrashLoopBackOff, lastState.terminated.exitCode): https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/
 * (container states, restart backoff) and https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/.
 * The MPIJob's Failed condition is the JobCondition of kubeflow.org/v2beta1
 * (https://github.com/kubeflow/mpi-operator/blob/master/pkg/apis/kubeflow/v2beta1/types.go). Names are our own.
 */
const pod = (name: string, status: NonNullable<V1Pod["status"]>): V1Pod => ({ metadata: { name }, status });

describe("a launcher's state from its pods", () => {
  test("Succeeded or Failed ends the job", () => {
    expect(launcherState([pod("l-1", { phase: "Succeeded" })])).toEqual({ state: "ended", pod: "l-1", ok: true });
    expect(launcherState([pod("l-2", { phase: "Failed" })])).toEqual({ state: "ended", pod: "l-2", ok: false });
  });

  test("restarted after a non-zero exit, or in CrashLoopBackOff: failed already, not waited on", () => {
    const restarted = pod("l-3", {
      phase: "Running",
      containerStatuses: [
        {
          name: "launcher",
          image: "nccl-tests",
          imageID: "",
          ready: false,
          restartCount: 1,
          state: { running: { startedAt: new Date(0) } },
          lastState: { terminated: { exitCode: 1, reason: "Error" } },
        },
      ],
    });
    expect(launcherState([restarted])).toMatchObject({ state: "crashed", pod: "l-3", why: /exit code 1 \(Error\)/ });
    const looping = pod("l-4", {
      phase: "Running",
      containerStatuses: [
        {
          name: "launcher",
          image: "nccl-tests",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "CrashLoopBackOff" } },
        },
      ],
    });
    expect(launcherState([looping])).toMatchObject({ state: "crashed", why: "CrashLoopBackOff" });
  });

  test("running, pending or absent: still waiting", () => {
    expect(launcherState([])).toEqual({ state: "waiting" });
    expect(launcherState([pod("l-5", { phase: "Pending" }), pod("l-6", { phase: "Running" })])).toEqual({
      state: "waiting",
    });
  });

  test("the MPIJob's Failed condition, true only", () => {
    const job = (status: string) => ({
      apiVersion: "kubeflow.org/v2beta1",
      kind: "MPIJob",
      status: { conditions: [{ type: "Failed", status, message: "launcher pods failed" }] },
    });
    expect(failedCondition(job("True"))).toBe("launcher pods failed");
    expect(failedCondition(job("False"))).toBeNull();
    expect(failedCondition(undefined)).toBeNull();
  });
});

describe("waves", () => {
  test("in order, jobs without a wave in wave 0", () => {
    const j = (id: string, wave?: number): BenchJob => ({
      id,
      round: 2,
      kind: "rails",
      nodes: ["a", "b"],
      why: "",
      ...(wave === undefined ? {} : { wave }),
    });
    expect(wavesOf([j("x", 3), j("y"), j("z", 1), j("w", 3)]).map((w) => w.map((x) => x.id))).toEqual([
      ["y"],
      ["z"],
      ["x", "w"],
    ]);
  });
});
