import { renderStructured } from "../../report/structured.js";
import { OUTPUT_OPTION } from "../shared-options.js";
import { type CommandSpec, str } from "../spec.js";
import { VERSION } from "../version.js";

export const command: CommandSpec = {
  name: "version",
  noArguments: { hint: "Run `kube-rdma version` alone." },
  summary: "Print the kube-rdma version",
  usage: "kube-rdma version [-o text|json|yaml]",
  description: "Prints the version (the same as `kube-rdma --version`); -o json adds the Node.js version it runs on.",
  options: [OUTPUT_OPTION],
  examples: [
    ["kube-rdma version", "print the version"],
    ["kube-rdma version -o json", "version and Node.js runtime as JSON"],
  ],
  async run({ values, io }) {
    const format = str(values, "output") ?? "text";
    if (format === "text") io.stdout(`${VERSION}\n`);
    else io.stdout(renderStructured(format, { schemaVersion: 1, version: VERSION, node: process.versions.node }));
    return 0;
  },
};
