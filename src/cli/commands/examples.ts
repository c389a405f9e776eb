import { listExamples } from "../../examples/index.js";
import { EXAMPLES_REPORT } from "../../report/kinds/examples.js";
import { renderReport } from "../../report/registry.js";
import { OUTPUT_OPTION } from "../shared-options.js";
import { type CommandSpec, str } from "../spec.js";

export const command: CommandSpec = {
  name: "examples",
  noArguments: { hint: "It lists every example host; use one with --example NAME on any command that reads a host." },
  summary: "List the embedded example hosts (usable with --example NAME on every command)",
  usage: "kube-rdma examples [-o text|json|yaml]",
  description:
    "kube-rdma embeds example hosts written in the real sysfs/command formats: the A100 RoCE example node (8×A100 + 9×mlx5) " +
    "and variations of it with one fault each. Any command that reads a host accepts --example NAME.",
  options: [OUTPUT_OPTION],
  examples: [
    ["kube-rdma examples", "list the example hosts"],
    ["kube-rdma verify --example a100-8x-roce", "verify the A100 RoCE example node"],
  ],
  async run({ values, io }) {
    io.stdout(await renderReport(EXAMPLES_REPORT, listExamples(), str(values, "output") ?? "text"));
    return 0;
  },
};
