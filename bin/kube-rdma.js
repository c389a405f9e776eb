#!/usr/bin/env node
// Entry point: loads the compiled CLI from dist/ (built by `npm ci` / `npm run build`).
let cli;
try {
  cli = await import("../dist/cli/main.js");
} catch (err) {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli/main.js")) {
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
