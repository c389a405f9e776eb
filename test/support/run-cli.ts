/** Runs the CLI from source in a child process (for tests that need signals): `node --import tsx run-cli.ts ARGS`. */
import { main } from "../../src/cli/main.js";

// KUBE_RDMA_TEST_RSS=1: the peak resident memory (bytes) as the last line on stderr, for tests that bound memory.
if (process.env.KUBE_RDMA_TEST_RSS === "1") {
  process.on("exit", () => process.stderr.write(`\nmax-rss ${process.resourceUsage().maxRSS * 1024}\n`));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 2;
  },
);
