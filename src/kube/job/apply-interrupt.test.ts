/**
 * `job --apply` interrupted part way (Ctrl-C or SIGTERM while the API server holds the job's create): the request
 * in flight is aborted, what the run created (the preflight ServiceAccount, Role, RoleBinding, ConfigMap) is deleted
 * again, the job is named as possibly created, and the exit status is 128 + the signal's number (130 for SIGINT,
 * 143 for SIGTERM), as a shell reports a command a signal ended
 * (https://www.gnu.org/software/bash/manual/html_node/Exit-Status.html). Before, the command held on to the stalled
 * request and a kill left the objects behind unnamed.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { fakeApiPerTest } from "../../../test/support/kube/fake-api-per-test.js";

const server = fakeApiPerTest();
const stalled = server.held;

const PREFLIGHT_PLURALS = ["serviceaccounts", "roles", "rolebindings", "configmaps"];

describe("job --apply interrupted while the job's create is in flight", () => {
  test.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s → exit %i; what it created is deleted again and named",
    async (signal, status) => {
      const api = await server.start(seedCluster(), {
        intercept: (req, res) => {
          if (!(req.method === "POST" && req.plural === "pytorchjobs")) return false;
          stalled.push(res);
          return true;
        },
      });
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          join(import.meta.dirname, "../../../test/support/run-cli.ts"),
          ...["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"],
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let err = "";
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      // Wait until the job's create is held by the server: the preflight objects exist by then.
      const fake = api;
      for (let i = 0; i < 400 && stalled.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(stalled.length).toBe(1);
      const before = PREFLIGHT_PLURALS.flatMap((p) => fake.store.get(p) ?? []).filter(
        (o) => o.metadata?.namespace === "team-a",
      );
      expect(before.length).toBe(PREFLIGHT_PLURALS.length);
      child.kill(signal);
      const code = await closed;
      clearTimeout(killer);
      expect(code, err).toBe(status);
      const left = PREFLIGHT_PLURALS.flatMap((p) => fake.store.get(p) ?? []).filter(
        (o) => o.metadata?.namespace === "team-a",
      );
      expect(left).toEqual([]);
      expect(err).toMatch(/interrupted before every object was applied/);
      for (const o of before) expect(err).toContain(`${o.kind}/${o.metadata.name} in namespace team-a`);
      expect(err).toMatch(/The request for PyTorchJob\/rdma-pytorch in namespace team-a was in flight/);
    },
    90_000,
  );
});
