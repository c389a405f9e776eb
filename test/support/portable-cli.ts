/**
 * The CLI as one self-contained file in a fresh world-readable directory, for a test that must run it as another
 * user (`nobody`, when the tests run as root): that user may not be able to read the checkout at all (a clone under
 * /root is mode 0700), so neither `src/` nor `node_modules/tsx` can be loaded from there. esbuild (tsx's own
 * compiler, in node_modules) bundles test/support/run-cli.ts with everything it imports.
 */
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";

/** Builds the bundle; returns its path (the directory and file readable by every user). */
export function portableCli(): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-cli-"));
  chmodSync(dir, 0o755);
  const out = join(dir, "cli.mjs");
  buildSync({
    entryPoints: [join(import.meta.dirname, "run-cli.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: out,
    logLevel: "error",
    // CommonJS packages in the bundle call require(): give the ES module one.
    banner: {
      js: 'import { createRequire as __kubeRdmaRequire } from "node:module"; const require = __kubeRdmaRequire(import.meta.url);',
    },
  });
  chmodSync(out, 0o644);
  return out;
}
