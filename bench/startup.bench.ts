/**
 * Start-up as a user meets it: `node bin/kube-rdma.js gids --root TREE` on the 8-rail example node (a100-8x-roce:
 * 8 data HCAs and a management one, 255 GID slots each, materialized as a host tree) against a bare `node -e ''`,
 * whole processes, in turn, median of several runs, wall and CPU time; `kube-rdma --version` shows the CLI's own start
 * without the work, and `verify --root` the same tree read whole (every check, the tree's command captures replayed).
 * Target: gids --root ≤ 2× a bare Node start. STARTUP_BENCH_RUNS sets the runs per command.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { machineLine, paired, type Timed } from "./measure.js";

const RUNS = Number(process.env.STARTUP_BENCH_RUNS ?? 21);
const TARGET = 2;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "bin", "kube-rdma.js");
const node = process.execPath;

function scratch(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return mkdtempSync("/dev/shm/kube-rdma-bench-");
  } catch {
    return mkdtempSync(join(tmpdir(), "kube-rdma-bench-"));
  }
}

if (!existsSync(join(root, "dist", "main.js"))) {
  process.stdout.write("dist/ missing: building (npm run build)…\n");
  execFileSync("npm", ["run", "build"], { stdio: "inherit", cwd: root });
}
const base = scratch();
try {
  const tree = join(base, "a100-8x-roce");
  materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), tree);
  const [bare, version, gids, verify] = paired(
    [
      { label: "node -e ''", argv: [node, "-e", ""] },
      { label: "kube-rdma --version", argv: [node, cli, "--version"] },
      { label: "kube-rdma gids --root TREE", argv: [node, cli, "gids", "--root", tree] },
      { label: "kube-rdma verify --root TREE", argv: [node, cli, "verify", "--root", tree] },
    ],
    RUNS,
  ) as Timed[] as [Timed, Timed, Timed, Timed];
  const rows = Number(/n_gids_found=(\d+)/.exec(gids.out)?.[1] ?? 0);
  const ratio = gids.ms / bare.ms;
  const cpuRatio = gids.cpuMs / bare.cpuMs;
  const cpu = (t: { cpuMs: number }) => `${t.cpuMs.toFixed(0)} ms CPU`;
  process.stdout.write(
    [
      machineLine(),
      `whole process, median of ${RUNS}, in turn (wall; CPU = user + system):`,
      `  node -e '': ${bare.ms.toFixed(1)} ms, ${cpu(bare)}`,
      `  kube-rdma --version: ${version.ms.toFixed(1)} ms, ${cpu(version)} (${(version.ms / bare.ms).toFixed(2)}× bare node)`,
      `  kube-rdma gids --root (8-rail example node, 9 HCAs × 255 GID slots, ${rows} rows): ${gids.ms.toFixed(1)} ms, ${cpu(gids)}`,
      `  kube-rdma verify --root (same tree, every check): ${verify.ms.toFixed(1)} ms, ${cpu(verify)} (${(verify.ms / bare.ms).toFixed(2)}× wall, ${(verify.cpuMs / bare.cpuMs).toFixed(2)}× CPU)`,
      `gids --root / bare node: ${ratio.toFixed(2)}× wall, ${cpuRatio.toFixed(2)}× CPU (target ≤ ${TARGET}×) ${ratio <= TARGET ? "PASS" : "MISS"}`,
      "",
    ].join("\n"),
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
