#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kube-rdma: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stderr.write("This is a bug; please report it with the command you ran.\n");
    process.exitCode = 2;
  },
);
