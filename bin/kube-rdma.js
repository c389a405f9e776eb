#!/usr/bin/env node
// Entry point: loads the bundled CLI from dist/ (built by `npm ci` / `npm run build`).
import module from "node:module";
import v8 from "node:v8";

// Node 20's V8 hands a function to its optimizing compiler after a small amount of work, and on a short command
// (`gids --root`: ~2,300 small file reads) that compiling costs more than the code it speeds up: a third of the
// command's CPU time. A larger budget leaves short runs in the baseline tiers and still optimizes the hot loops of
// long ones (an NCCL log scan measures the same). Node 22 and later tier up differently and have no such flag.
if (process.versions.node.startsWith("20.")) v8.setFlagsFromString("--interrupt-budget=1000000");

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
