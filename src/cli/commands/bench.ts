import { COLLECTIVES, ncclTestsCommand, shellLine } from "../../nccl/bench-command.js";
import { renderStructured } from "../../report/structured.js";
import { OUTPUT_OPTION } from "../shared-options.js";
import { type CommandSpec, num, str, UsageError } from "../spec.js";

function positiveInt(value: number | undefined, flag: string, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new UsageError(`${flag} expects a positive whole number; got ${v}.`);
  return v;
}

export const command: CommandSpec = {
  name: "bench",
  summary: "Benchmark helpers: `bench job` prints the exact nccl-tests command for N nodes",
  usage: "kube-rdma bench job --nodes N --gpus G [--collective all_reduce] [-b 8] [-e 8G] [-o text|json|yaml]",
  description:
    "`bench job` prints the nccl-tests command line that measures the RDMA fabric: mpirun with one rank per GPU " +
    "(-np nodes×gpus, -N gpus), NCCL_DEBUG=INFO so that `kube-rdma analyze run.log` can explain the result, and " +
    "`<collective>_perf -b 8 -e 8G -f 2 -g 1`. For 2 nodes it adds NCCL_ALGO=Ring: NCCL may otherwise pick Tree, " +
    "whose bus bandwidth is not comparable to the NICs' rate. `kube-rdma job` uses the same command for MPIJobs.",
  options: [
    { name: "nodes", type: "number", valueName: "N", default: 2, description: "Number of nodes" },
    { name: "gpus", type: "number", valueName: "G", default: 8, description: "GPUs per node (one rank each)" },
    {
      name: "collective",
      type: "string",
      valueName: "NAME",
      choices: COLLECTIVES,
      default: "all_reduce",
      description: "nccl-tests binary: <NAME>_perf",
    },
    { name: "min-bytes", short: "b", type: "string", valueName: "SIZE", default: "8", description: "Smallest message" },
    { name: "max-bytes", short: "e", type: "string", valueName: "SIZE", default: "8G", description: "Largest message" },
    OUTPUT_OPTION,
  ],
  examples: [
    ["kube-rdma bench job --nodes 2 --gpus 8", "the 16-rank all_reduce_perf command, NCCL_ALGO=Ring"],
    ["kube-rdma bench job --nodes 4 --gpus 8 --collective alltoall", "alltoall across 4 nodes"],
    ["kube-rdma bench job -o json", "argv, np, env and notes as JSON (for scripts)"],
  ],
  async run({ values, positionals, io }) {
    const sub = positionals[0];
    if (sub !== "job") {
      throw new UsageError(
        sub === undefined ? "bench needs a subcommand." : `unknown bench subcommand "${sub}".`,
        "Available: `kube-rdma bench job --nodes N --gpus G`.",
      );
    }
    const nodes = positiveInt(num(values, "nodes"), "--nodes", 2);
    const gpusPerNode = positiveInt(num(values, "gpus"), "--gpus", 8);
    let cmd: ReturnType<typeof ncclTestsCommand>;
    try {
      cmd = ncclTestsCommand({
        nodes,
        gpusPerNode,
        collective: str(values, "collective") ?? "all_reduce",
        minBytes: str(values, "min-bytes") ?? "8",
        maxBytes: str(values, "max-bytes") ?? "8G",
      });
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`${err.message}.`);
      throw err;
    }
    const format = str(values, "output") ?? "text";
    if (format !== "text") {
      io.stdout(renderStructured(format, { schemaVersion: 1, command: shellLine(cmd.argv), ...cmd }));
      return 0;
    }
    io.stdout(`${shellLine(cmd.argv)}\n\n${cmd.notes.map((n) => `# ${n}`).join("\n")}\n`);
    return 0;
  },
};
