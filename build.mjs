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
 * - The snapshot schemas' checks are compiled here, not at each start: ajv's standalone code for the schemas of
 *   src/host/snapshot-schema-defs.ts (the same options as from source) is bundled in place of
 *   src/host/snapshot-validators.ts, so the CLI loads plain functions and never ajv for them.
 * `node build.mjs DIR` builds into DIR instead of dist/ (the test of the built CLI does).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const WORKERS = {
  "range-worker": "src/nccl/log/range-worker.ts",
  "segment-worker": "src/nccl/log/segment-worker.ts",
  "analysis-worker": "src/kube/fleet/analysis-worker.ts",
};

const VALIDATORS_SOURCE = resolve("src/host/snapshot-validators.ts");

/** ajv's standalone module for the snapshot schemas, written beside node_modules (where its generator finds ajv). */
async function compiledValidators() {
  const work = resolve("node_modules/.cache/kube-rdma-build");
  mkdirSync(work, { recursive: true });
  const generator = join(work, "generate-validators.mjs");
  await build({
    entryPoints: [VALIDATORS_SOURCE],
    outfile: generator,
    bundle: true,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "warning",
  });
  const { standaloneValidators } = await import(pathToFileURL(generator).href);
  const module = join(work, "snapshot-validators.js");
  writeFileSync(module, standaloneValidators());
  return module;
}

/** Bundles the ahead-of-time checks wherever a module imports the run-time compiler. */
function precompiledValidators(module) {
  return {
    name: "precompiled-validators",
    setup(b) {
      b.onResolve({ filter: /[/\\]snapshot-validators\.js$/ }, (args) =>
        resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts")) === VALIDATORS_SOURCE
          ? { path: module }
          : undefined,
      );
    },
  };
}

const out = process.argv[2] ?? "dist";
rmSync(out, { recursive: true, force: true });
const validatorsModule = await compiledValidators();
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
  plugins: [precompiledValidators(validatorsModule)],
});
cpSync("src/device-plugin/proto", join(out, "proto"), { recursive: true });
mkdirSync(join(out, "cli"), { recursive: true });
writeFileSync(join(out, "cli", "main.js"), 'export * from "../main.js";\n');
