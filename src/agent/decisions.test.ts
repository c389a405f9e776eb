import { describe, expect, test } from "vitest";
import type { Finding } from "../core/finding.js";
import { conditionNeedsWrite, deriveCondition, MESSAGE_LIMIT, nextCondition } from "./condition.js";
import { eventsBetween } from "./events.js";
import { decideTaint, taintBudget } from "./taint.js";

const f = (code: string, severity: Finding["severity"], subject = "mlx5_3"): Finding => ({
  code,
  severity,
  subject,
  message: `${subject} has ${code}`,
  fix: "do the fix",
});

describe("the RDMAReady condition", () => {
  test("warnings alone keep the node Ready, with the warning's code as reason", () => {
    expect(deriveCondition({ kind: "checked", findings: [f("FW_DIFFERS", "warning")] })).toMatchObject({
      status: "True",
      reason: "FW_DIFFERS",
    });
  });
  test("an error within the start-up grace period is Unknown, not False (OFED may still be coming up)", () => {
    const c = deriveCondition({ kind: "checked", findings: [f("PORT_DOWN", "error")], withinGrace: true });
    expect(c).toMatchObject({ status: "Unknown", reason: "RDMAWithinStartupGrace" });
    expect(c.message).toMatch(/grace/);
  });
  test("checks that could not run → Unknown, reason RDMACheckFailed", () => {
    expect(deriveCondition({ kind: "failed", reason: "EACCES /host/sys" })).toMatchObject({
      status: "Unknown",
      reason: "RDMACheckFailed",
    });
  });
  test("the message is one line of bounded length", () => {
    const long = { ...f("PORT_DOWN", "error"), message: "x\n".repeat(2000) };
    const c = deriveCondition({ kind: "checked", findings: [long] });
    expect(c.message.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
    expect(c.message).not.toMatch(/\n/);
  });
  test("the transition time moves only when the status changes; the write happens on change or stale heartbeat", () => {
    const t0 = new Date("2026-12-01T00:00:00Z");
    const first = nextCondition({ status: "True", reason: "RDMAChecksPassed", message: "ok" }, undefined, t0);
    const t1 = new Date("2026-12-01T00:05:00Z");
    const same = nextCondition({ status: "True", reason: "RDMAChecksPassed", message: "ok" }, first, t1);
    expect(same.lastTransitionTime).toBe(first.lastTransitionTime);
    expect(conditionNeedsWrite(same, first, t1, 1200)).toBe(false);
    expect(conditionNeedsWrite(same, first, new Date("2026-12-01T00:20:00Z"), 1200)).toBe(true);
    const down = nextCondition({ status: "False", reason: "PORT_DOWN", message: "down" }, first, t1);
    expect(down.lastTransitionTime).toBe("2026-12-01T00:05:00Z");
    expect(conditionNeedsWrite(down, first, t1, 1200)).toBe(true);
  });
});

describe("events", () => {
  test("a new error is a Warning; one that cleared is a Normal RDMARecovered; an unchanged one is silent", () => {
    const before = [
      { code: "PORT_DOWN", subject: "mlx5_3" },
      { code: "NO_ROCEV2_GID", subject: "mlx5_5" },
    ];
    const events = eventsBetween(before, [f("PORT_DOWN", "error"), f("PORT_DOWN", "error", "mlx5_4")]);
    expect(events.map((e) => [e.type, e.reason, e.subject])).toEqual([
      ["Warning", "PORT_DOWN", "mlx5_4"],
      ["Normal", "RDMARecovered", "mlx5_5"],
    ]);
  });
  test("warnings never raise events (an idle node's counters do not page anyone)", () => {
    expect(eventsBetween(undefined, [f("FW_DIFFERS", "warning")])).toEqual([]);
  });
});

describe("the taint circuit breaker", () => {
  const base = { failing: true, tainted: false, selectedNodes: 100, maxShare: 0.1 };
  test("a failing node is tainted while fewer than the share are", () => {
    expect(decideTaint({ ...base, taintedNodes: 9 })).toEqual({ action: "taint" });
  });
  test("the breaker holds the taint back once the share is reached (a bad rule must not drain the fleet)", () => {
    const d = decideTaint({ ...base, taintedNodes: 10 });
    expect(d.action).toBe("held");
  });
  test("a recovered node is untainted; a small fleet can still fence one node", () => {
    expect(decideTaint({ ...base, failing: false, tainted: true, taintedNodes: 10 })).toEqual({ action: "untaint" });
    expect(taintBudget(3, 0.1)).toBe(1);
  });
});

describe("a check that could not run neither hides a healthy result nor is hidden", () => {
  // The shipped pod without the NVIDIA runtime: the host's nvidia-smi finds no libnvidia-ml.so in the container (the
  // shape of the error seen in https://github.com/NVIDIA/nvidia-docker/issues/1163).
  const skipped = {
    code: "CHECK_SKIPPED",
    severity: "warning" as const,
    subject: "nvidia-smi",
    message: "nvidia-smi could not run here: libnvidia-ml.so not found",
    fix: "mount the driver's library directory",
  };
  test("a healthy node whose pod cannot run nvidia-smi is True with a reason that says the GPU checks did not run", () => {
    const c = deriveCondition({ kind: "checked", findings: [skipped] });
    expect(c.status).toBe("True");
    expect(c.reason).toBe("RDMAChecksPassedGPUChecksNotRun");
    expect(c.message).toMatch(/every check that ran passed; not run: nvidia-smi could not run here/);
  });
  test("a real warning or error still names the reason", () => {
    const warn = { ...skipped, code: "FW_MISMATCH", subject: "mlx5_4", message: "firmware differs" };
    expect(deriveCondition({ kind: "checked", findings: [skipped, warn] }).reason).toBe("FW_MISMATCH");
    const err = { ...warn, code: "PORT_DOWN", severity: "error" as const };
    expect(deriveCondition({ kind: "checked", findings: [skipped, err] })).toMatchObject({
      status: "False",
      reason: "PORT_DOWN",
    });
  });
});
