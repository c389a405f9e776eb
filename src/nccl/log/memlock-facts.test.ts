/**
 * The ENOMEM causes of an NCCL log (registration: NCCL_WARN_MEMLOCK; queue-pair creation: NCCL_WARN_QP_RESOURCES)
 * read against the process facts of a node model taken where the job runs (a snapshot collected in the pod, or
 * `--example`): the memlock limit is the cause only where IPC_LOCK is absent and the limit is small, since
 * CAP_IPC_LOCK lifts RLIMIT_MEMLOCK for locking memory (capabilities(7),
 * https://man7.org/linux/man-pages/man7/capabilities.7.html; getrlimit(2) RLIMIT_MEMLOCK). The WARN line's shape is
 * NCCL's "Call to ibv_reg_mr… failed with error Cannot allocate memory" (src/misc/ibvwrap.cc,
 * https://github.com/NVIDIA/nccl).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { openReader } from "../../host/open.js";
import { readInventory } from "../../inventory/index.js";
import type { NodeInventory } from "../../inventory/types.js";

const LOG = readFileSync("fixtures/nccl-logs/reg-enomem-memlock-2.21.txt", "utf8");
const inventoryOf = async (example: string) => readInventory(await openReader({ example }));
const memlockMessage = (inventory?: NodeInventory) =>
  analyzeText("nccl.log", LOG, inventory ? { inventory } : {}).findings.find((f) => f.code === "NCCL_WARN_MEMLOCK")
    ?.message ?? "";

describe("NCCL_WARN_MEMLOCK against the process's IPC_LOCK and memlock limit", () => {
  test("a default pod (no IPC_LOCK, memlock 64 KiB): the memlock limit is the cause", async () => {
    const m = memlockMessage(await inventoryOf("pod-restricted"));
    expect(m).toContain("here the memlock limit: the process lacks IPC_LOCK and its memlock limit is 64 KiB");
  });

  test("IPC_LOCK present and memlock unlimited: not the limit, said so", async () => {
    const m = memlockMessage(await inventoryOf("a100-8x-roce"));
    expect(m).toContain("here not the memlock limit: the process has IPC_LOCK");
  });

  test("without a node model the cause keeps both readings and claims neither", () => {
    const m = memlockMessage();
    expect(m).toContain("where the container lacks IPC_LOCK");
    expect(m).not.toContain("here the memlock limit");
    expect(m).not.toContain("here not the memlock limit");
  });
});
