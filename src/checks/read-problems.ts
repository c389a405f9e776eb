/** Facts that could not be read are findings too: the report says what it could not see. */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const readProblemsCheck: Check = {
  name: "read-problems",
  codes: ["READ_PROBLEM", "IMPLAUSIBLE_NAME"],
  run(inv) {
    return inv.problems.map((p) =>
      // A name the node model refused (a newline, an escape, shell syntax in a device name) is an error: the device
      // it names is left out of every report, so the node cannot pass on what remains.
      p.code === "host.implausible_name"
        ? finding("IMPLAUSIBLE_NAME", p.path || "host", { text: p.message, hint: p.hint ?? null })
        : finding("READ_PROBLEM", p.path || p.code || "host", {
            problemCode: p.code,
            text: p.message,
            hint: p.hint ?? null,
          }),
    );
  },
};

/** Checks that could not run are findings: the facts they needed, where they are read, and why they were not. */
export const skippedChecksCheck: Check = {
  name: "skipped-checks",
  codes: ["CHECK_SKIPPED"],
  run(inv, opts) {
    const out = (inv.missing ?? []).map((m) => finding("CHECK_SKIPPED", m.path, { ...m }));
    if (opts.pod && inv.shmBytes === null) {
      out.push(
        finding("CHECK_SKIPPED", "/dev/shm", {
          fact: "the size of /dev/shm",
          path: "/dev/shm",
          why: "its filesystem size is unknown",
          checks: "the /dev/shm size NCCL's SHM transport needs",
        }),
      );
    }
    return out;
  },
};
