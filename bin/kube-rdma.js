#!/usr/bin/env node
// Entry point: loads the bundled CLI from dist/ (built by `npm ci` / `npm run build`).
import module from "node:module";

// Node ≥ 22.1 keeps compiled code on disk between runs (the directory NODE_COMPILE_CACHE names, else one under the
// system's temporary directory): later starts skip compiling the CLI. Older Node has no such cache; a cache that
// cannot be written only costs the compiling it would have saved.
try {
  module.enableCompileCache?.();
} catch {}

let cli;
try {
  cli = await import("../dist/main.js");
} catch (err) {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/main.js")) {
    process.stderr.write("kube-rdma: the compiled CLI is missing (dist/). Run `npm ci` or `npm run build` first.\n");
    process.exit(2);
  }
  throw err;
}

cli.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kube-rdma: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stderr.write("This is a bug; please report it with the command you ran.\n");
    process.exitCode = 2;
  },
);
