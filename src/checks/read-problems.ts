/** Facts that could not be read are findings too: the report says what it could not see. */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const readProblemsCheck: Check = {
  name: "read-problems",
  codes: ["READ_PROBLEM"],
  run(inv) {
    return inv.problems.map((p) =>
      finding("READ_PROBLEM", p.path || p.code || "host", {
        problemCode: p.code,
        text: p.message,
        hint: p.hint ?? null,
      }),
    );
  },
};
