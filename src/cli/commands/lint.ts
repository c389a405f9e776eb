import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { bySeverity, exitCodeFor, summarize } from "../../core/finding.js";
import { DEFAULT_LINT_OPTIONS, type LintFileResult, lintManifestText } from "../../kube/lint/index.js";
import { parseQuantity } from "../../kube/resources.js";
import { summaryLine } from "../../report/findings-text.js";
import { renderStructured } from "../../report/structured.js";
import { OUTPUT_OPTION, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, type Io, str, UsageError } from "../spec.js";

async function readInput(file: string, io: Io): Promise<string> {
  if (file === "-") return io.readStdin();
  try {
    return await readFile(resolve(io.cwd, file), "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new UsageError(
      `cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(err)}.`,
      "Pass manifest files (multi-document YAML), or - to read standard input.",
    );
  }
}

function renderText(results: LintFileResult[], strict: boolean): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const p of r.problems) lines.push(`ERROR   ${p.message}`, ...(p.hint ? [`        ${p.hint}`] : []));
    for (const f of [...r.findings].sort(bySeverity)) {
      const loc = `${r.file}${f.line ? `:${f.line}` : ""} (document ${f.document}, ${f.kind}/${f.name}${f.container ? `, container ${f.container}` : ""})`;
      lines.push(`${f.severity.toUpperCase().padEnd(7)} ${f.code} ${loc}`);
      lines.push(`        field: ${f.field}`, `        ${f.message}`, `        fix: ${f.fix}`);
    }
  }
  const all = results.flatMap((r) => r.findings);
  const s = summarize(all, strict);
  const objects = results.reduce((n, r) => n + r.objects.length, 0);
  const unread = results.reduce((n, r) => n + r.problems.length, 0);
  // A file that could not be read is never a PASS: its objects were not checked.
  const status = unread > 0 ? "FAIL" : s.status.toUpperCase();
  const unreadText = unread > 0 ? `; ${unread} input problem(s), those documents were not checked` : "";
  lines.push(summaryLine(s, `${objects} object(s) in ${results.length} file(s)${unreadText}`, status));
  return `${lines.join("\n")}\n`;
}

export const command: CommandSpec = {
  name: "lint",
  summary: "Lint job manifests for RDMA/NCCL failure patterns",
  usage: "kube-rdma lint FILE… [-o text|json|yaml]   (- reads standard input)",
  description: `
Reads multi-document YAML (also a v1 List) and checks every pod template inside Pod, Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job, CronJob, PyTorchJob, MPIJob, TFJob and Volcano Job for the patterns that make RDMA
training slow or broken: no RDMA resource, no IPC_LOCK (and not privileged), no memory-backed or a small /dev/shm,
NCCL_IB_DISABLE=1, NCCL_NET=Socket, a prefix NCCL_IB_HCA (mlx5_1 also matches mlx5_10…19), the management NIC in
NCCL_IB_HCA, hostNetwork without dnsPolicy ClusterFirstWithHostNet, several pods without a gang scheduler, GPU counts
that differ between workers, sidecar injection not disabled, and \`sh -c\` wrappers that lose variables a platform
injects into PID 1 only. Each finding names the file, document, object, container and field path.
Exit 0 clean (warnings allowed), 1 errors found, 2 unreadable input or invalid YAML (with line and column).`,
  options: [
    {
      name: "management-hca",
      type: "string",
      valueName: "HCA",
      default: "mlx5_0",
      description: "The management NIC that must not be in NCCL_IB_HCA",
    },
    { name: "shm-min", type: "string", valueName: "SIZE", default: "1Gi", description: "Smallest acceptable /dev/shm" },
    OUTPUT_OPTION,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma lint job.yaml", "lint a manifest"],
    ["kube-rdma job pytorch --nodes 2 | kube-rdma lint -", "lint generated YAML from standard input"],
    ["helm template chart/ | kube-rdma lint - -o json", "lint a rendered chart, JSON report"],
  ],
  async run({ values, positionals, io }) {
    if (positionals.length === 0) throw new UsageError("lint needs at least one FILE (or - for standard input).");
    const shmMinBytes = parseQuantity(str(values, "shm-min") ?? "1Gi");
    if (shmMinBytes === null)
      throw new UsageError(`--shm-min must be a quantity such as 1Gi; got "${str(values, "shm-min")}".`);
    const opts = { ...DEFAULT_LINT_OPTIONS, managementHca: str(values, "management-hca") ?? "mlx5_0", shmMinBytes };
    const results: LintFileResult[] = [];
    for (const file of positionals) {
      results.push(lintManifestText(await readInput(file, io), file === "-" ? "<stdin>" : file, opts));
    }
    const strict = bool(values, "strict");
    const format = str(values, "output") ?? "text";
    const findings = results.flatMap((r) => r.findings);
    const problems = results.flatMap((r) => r.problems);
    if (format === "text") io.stdout(renderText(results, strict));
    else {
      const { status, errors, warnings } = summarize(findings, strict);
      io.stdout(
        renderStructured(format, {
          schemaVersion: 1,
          files: results.map((r) => ({ file: r.file, objects: r.objects, problems: r.problems })),
          findings: findings.map(({ evidence: _e, ...f }) => f),
          summary: { status: problems.length ? "fail" : status, errors: errors + problems.length, warnings },
        }),
      );
    }
    if (problems.length) return 2;
    return exitCodeFor(findings, strict);
  },
};
