import { listExamples } from "../../examples/index.js";
import { renderStructured } from "../../report/structured.js";
import { OUTPUT_OPTION } from "../shared-options.js";
import { type CommandSpec, str } from "../spec.js";

export const command: CommandSpec = {
  name: "examples",
  summary: "List the embedded example hosts (usable with --example NAME on every command)",
  usage: "kube-rdma examples [-o text|json|yaml]",
  description:
    "kube-rdma embeds example hosts written in the real sysfs/command formats: the A100 RoCE example node (8×A100 + 9×mlx5, as in the Baidu CCE reference setup) " +
    "and variations of it with one fault each. Any command that reads a host accepts --example NAME.",
  options: [OUTPUT_OPTION],
  examples: [
    ["kube-rdma examples", "list the example hosts"],
    ["kube-rdma verify --example a100-8x-roce-seed", "verify the A100 RoCE example node"],
  ],
  async run({ values, io }) {
    const examples = listExamples();
    const format = str(values, "output") ?? "text";
    if (format !== "text") {
      io.stdout(
        renderStructured(
          format,
          examples.map((e) => ({ name: e.name, description: e.description })),
        ),
      );
      return 0;
    }
    const width = Math.max(...examples.map((e) => e.name.length)) + 2;
    for (const e of examples) io.stdout(`${e.name.padEnd(width)}${e.description}\n`);
    return 0;
  },
};
