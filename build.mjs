/**
 * `npm run build`: bundles the CLI with esbuild into dist/, one ESM file per entry point plus shared chunks.
 *
 * - Entry points: the CLI (dist/main.js, which bin/kube-rdma.js loads) and each worker thread's module
 *   (startModuleWorker looks for `name.js` next to the module that starts it; every output file lies in dist/ itself,
 *   so that holds whichever chunk the starting code lands in).
 * - Each command stays a dynamic import, so it is a chunk of its own: `kube-rdma gids` loads and compiles only what
 *   gids needs, not the gRPC or Kubernetes clients.
 * - Packages stay in node_modules (loaded by Node as they are, only by the chunks that import them).
 * - The device plugin's .proto files are copied to dist/proto (api.ts looks beside its module first).
 * - dist/cli/main.js re-exports dist/main.js for scripts that load the CLI module by its former path.
 * `node build.mjs DIR` builds into DIR instead of dist/ (the test of the built CLI does).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const WORKERS = {
  "range-worker": "src/nccl/log/range-worker.ts",
  "segment-worker": "src/nccl/log/segment-worker.ts",
  "analysis-worker": "src/kube/fleet/analysis-worker.ts",
};

const out = process.argv[2] ?? "dist";
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { main: "src/cli/main.ts", ...WORKERS },
  outdir: out,
  entryNames: "[name]",
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  legalComments: "none",
  logLevel: "warning",
});
cpSync("src/device-plugin/proto", join(out, "proto"), { recursive: true });
mkdirSync(join(out, "cli"), { recursive: true });
writeFileSync(join(out, "cli", "main.js"), 'export * from "../main.js";\n');
