import type { Example } from "../../examples/registry.js";
import { defineReport } from "../registry.js";

/** `examples`: the embedded example hosts. */
export const EXAMPLES_REPORT = defineReport<readonly Example[]>({
  name: "examples",
  text: (examples) => {
    const width = Math.max(...examples.map((e) => e.name.length)) + 2;
    return examples.map((e) => `${e.name.padEnd(width)}${e.description}\n`).join("");
  },
  structured: (examples) => examples.map((e) => ({ name: e.name, description: e.description })),
});
