import { readBoundedSync } from "../../core/bounded-read.js";

/** Pod facts are a few KiB; this is far above any real one. */
const MAX_FACTS_BYTES = 16 * 2 ** 20;
const WRITE_FACTS = "Write facts with `kube-rdma preflight --facts-only -o json > FILE`.";

import { resolve } from "node:path";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom, NAMESPACE_OPTION } from "../../kube/api/options.js";
import type { PodFacts } from "../../preflight/types.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

export const command: CommandSpec = {
  name: "preflight",
  summary: "Compare the pods of a training job with each other before NCCL starts (init container)",
  usage:
    "kube-rdma preflight [--job NAME --members N] [--facts-only] [--root DIR | --snapshot FILE | --example NAME] [-o FORMAT]\n" +
    "       kube-rdma preflight diff FACTS.json…",
  description: `
Runs inside a training pod, usually as the init container \`kube-rdma job\` adds (--preflight), and stops the job
before its first rank starts when its pods disagree. Each pod collects its own facts: which
/dev/infiniband/uverbs* it can really open (open O_RDWR, the way libibverbs does; a snapshot answers what it
recorded), its GID tables and the RoCE v2 address per HCA, interfaces and routes, memlock and IPC_LOCK, /dev/shm,
the GPUs it sees (NVIDIA_VISIBLE_DEVICES, /dev/nvidia*), the GPUDirect mechanism, the NCCL library and net plugin
in the image (with their versions, from the file name, the link target, the pip package or the library's own
banner) and every NCCL_* variable of its environment (/proc/self/environ).

With --job NAME --members N the pod publishes its facts to the ConfigMap <NAME>-preflight (one key per pod),
waits on watch events until all N pods have published (--timeout), and compares them: a different HCA set, an HCA
one pod cannot open, a GID index that differs, different NCCL or plugin versions, an NCCL variable that differs,
GPUDirect on some pods only, a rail on different subnets. Each difference names every side ("GID index 3 on 15
pods, 5 on worker-7") and the fix, preferring a per-pod-safe setting (NCCL_IB_ADDR_RANGE) over a fixed one.
The pods need the role in deploy/preflight/rbac.yaml (get/patch/list/watch of that one ConfigMap; kube-rdma job
writes it beside each job).

  --facts-only      print this pod's facts (-o json: what the gang publishes) and exit 0
  diff FACTS.json…  compare saved facts offline

Exit codes: 0 the pods agree (warnings allowed), 1 a blocking difference (or --strict and a warning) or the gang
did not assemble in time, 2 could not run (unreadable facts, no API access).`,
  options: [
    ...SOURCE_OPTIONS,
    OUTPUT_OPTION,
    STRICT_OPTION,
    { name: "facts-only", type: "boolean", description: "Print this pod's facts and exit" },
    {
      name: "job",
      type: "string",
      valueName: "NAME",
      description: "Gang mode: the job whose pods meet (ConfigMap NAME-preflight)",
    },
    {
      name: "members",
      type: "number",
      valueName: "N",
      description: "Gang mode: pods in the gang (the job's replicas with GPUs)",
    },
    {
      name: "timeout",
      type: "number",
      valueName: "SECONDS",
      default: 600,
      description: "Gang mode: how long to wait for every pod",
    },
    {
      name: "pod-name",
      type: "string",
      valueName: "NAME",
      description: "This pod's name (default $POD_NAME, else the host name)",
    },
    { ...NAMESPACE_OPTION, description: "Gang mode: namespace (default $POD_NAMESPACE, else the kubeconfig's)" },
    ...KUBECONFIG_OPTIONS,
  ],
  examples: [
    ["kube-rdma preflight --facts-only --example training-pod -o json > a.json", "one pod's facts as JSON"],
    ["kube-rdma preflight diff a.json b.json", "compare saved facts: exit 1 on a blocking difference"],
    ["kube-rdma preflight --job llama --members 16", "in each pod's init container: meet, compare, pass or fail"],
  ],
  async run({ values, positionals, io }) {
    if (positionals[0] === "diff") return diff(positionals.slice(1), values, io);
    if (positionals.length) {
      throw new UsageError(
        `preflight takes no argument "${positionals[0]}".`,
        "Use `kube-rdma preflight diff FACTS.json…` to compare saved facts.",
      );
    }
    const { readerFromFlags } = await import("../source.js");
    const { readPodFacts } = await import("../../preflight/read.js");
    const seconds = num(values, "command-timeout");
    const facts = await readPodFacts(await readerFromFlags(values), {
      podName: str(values, "pod-name") ?? io.env.POD_NAME,
      ...(seconds !== undefined ? { commandTimeoutMs: seconds * 1000 } : {}),
    });
    const format = str(values, "output") ?? "text";
    if (bool(values, "facts-only")) {
      const { renderFactsText } = await import("../../preflight/report.js");
      const { renderStructured } = await import("../../report/structured.js");
      const { lineSafe, terminalSafe } = await import("../../report/registry.js");
      // Text is lines: a value read from the pod (its name, a library path) stays on one line, with no control bytes.
      io.stdout(format === "text" ? terminalSafe(renderFactsText(lineSafe(facts))) : renderStructured(format, facts));
      return 0;
    }
    if (str(values, "job") === undefined) {
      if (num(values, "members") !== undefined)
        throw new UsageError("--members needs --job NAME (the gang to meet in).");
      return report([{ name: facts.pod, facts }], [], `kube-rdma preflight: pod ${facts.pod}`, values, io);
    }
    return gang(facts, values, io);
  },
};

async function report(
  members: { name: string; facts: PodFacts }[],
  extra: import("../../core/finding.js").Finding[],
  title: string,
  values: OptionValues,
  io: Io,
): Promise<number> {
  const { preflightReport, renderPreflightText } = await import("../../preflight/report.js");
  const strict = bool(values, "strict");
  const r = preflightReport(members, extra, strict);
  const format = str(values, "output") ?? "text";
  const { lineSafe, oneLine, terminalSafe } = await import("../../report/registry.js");
  if (format === "text") io.stdout(terminalSafe(renderPreflightText(lineSafe(r), oneLine(title))));
  else {
    const { renderStructured } = await import("../../report/structured.js");
    io.stdout(renderStructured(format, r));
  }
  return r.summary.status === "fail" ? 1 : 0;
}

async function gang(facts: PodFacts, values: OptionValues, io: Io): Promise<number> {
  const job = str(values, "job")!;
  const members = num(values, "members");
  if (members === undefined || !Number.isInteger(members) || members < 1) {
    throw new UsageError(
      `--job needs --members N, the number of pods in the gang (a whole number ≥ 1); got ${String(values.members)}.`,
      "kube-rdma job writes it from the job's replica counts; by hand: the replicas of every GPU replica type.",
    );
  }
  const timeout = num(values, "timeout") ?? 600;
  if (!(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds; got ${timeout}.`);
  const { loadKubeConfig } = await import("../../kube/api/config.js");
  const { makeClients, REQUEST_TIMEOUT_MS } = await import("../../kube/api/client.js");
  const { PREFLIGHT_ROLE, preflightConfigMapName, rendezvous } = await import("../../preflight/gang.js");
  const target = loadKubeConfig(kubeOptionsFrom(values, io.env));
  const namespace =
    str(values, "namespace") ??
    io.env.POD_NAMESPACE ??
    target.kc.getContextObject(target.context)?.namespace ??
    "default";
  const configMap = preflightConfigMapName(job);
  const result = await rendezvous({
    // No one request may outlast the rendezvous itself (a stalled API server holds each up to its deadline).
    clients: makeClients(target, PREFLIGHT_ROLE, {
      requestTimeoutMs: Math.min(target.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, timeout * 1000),
    }),
    namespace,
    configMap,
    facts,
    members,
    timeoutMs: timeout * 1000,
  });
  const title = `kube-rdma preflight: job ${job}, pod ${facts.pod} (ConfigMap ${namespace}/${configMap})`;
  return report(result.members, result.complete ? [] : [result.finding], title, values, io);
}

/** `preflight diff FILE…`: facts saved with --facts-only -o json, compared offline. */
async function diff(files: string[], values: OptionValues, io: Io): Promise<number> {
  if (files.length === 0) {
    throw new UsageError(
      "preflight diff needs the facts to compare: FACTS.json files written by `kube-rdma preflight --facts-only -o json`.",
      "Example: kube-rdma preflight diff worker-0.json worker-1.json",
    );
  }
  const { factsProblems, membersOf } = await import("../../preflight/report.js");
  const inputs = files.map((file) => {
    let text: string;
    try {
      // Facts are a few KiB; a device or FIFO (size 0 to stat) must not be read to its end.
      const read = readBoundedSync(resolve(io.cwd, file), MAX_FACTS_BYTES);
      if (!read.ok) {
        throw new UsageError(
          `${file}: more than pod facts can be (at most ${MAX_FACTS_BYTES} bytes).`,
          "Write facts with `kube-rdma preflight --facts-only -o json > FILE`.",
        );
      }
      text = read.bytes.toString("utf8");
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new UsageError(`${file}: cannot read (${code === "ENOENT" ? "no such file" : code}).`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new UsageError(
        `${file}: not JSON (${err instanceof Error ? err.message : String(err)}).`,
        "Write facts with `kube-rdma preflight --facts-only -o json > FILE`.",
      );
    }
    const problems = factsProblems(data);
    if (problems.length === 1 && !problems[0]!.startsWith("$")) {
      throw new UsageError(`${file}: ${problems[0]}.`, WRITE_FACTS);
    }
    if (problems.length > 0) {
      throw new UsageError(
        [
          `${file}: not pod facts as docs/preflight-facts.schema.json describes them:`,
          ...problems.map((p) => `  ${p}`),
        ],
        `${WRITE_FACTS} A file edited by hand must keep every field with its type.`,
      );
    }
    return { label: file.slice(file.lastIndexOf("/") + 1).replace(/\.json$/, ""), facts: data as PodFacts };
  });
  // One pod compared with nothing, or a file compared with itself, cannot "agree": nothing was compared.
  const paths = files.map((f) => resolve(io.cwd, f));
  const twice = files.find((_file, i) => paths.indexOf(paths[i]!) !== i);
  if (twice !== undefined) {
    throw new UsageError(
      `${twice} is given twice: a pod compared with itself always agrees, so that proves nothing.`,
      "Pass each pod's facts once: kube-rdma preflight diff worker-0.json worker-1.json",
    );
  }
  if (files.length < 2) {
    throw new UsageError(
      `preflight diff compares pods with each other and got the facts of 1 pod (${files[0]}): there is nothing to compare it with.`,
      "Pass the facts of every pod of the job (at least 2): kube-rdma preflight diff worker-0.json worker-1.json; for one pod's own checks run `kube-rdma verify --pod`.",
    );
  }
  return report(membersOf(inputs), [], "kube-rdma preflight diff", values, io);
}
