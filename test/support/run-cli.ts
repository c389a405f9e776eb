/** Runs the CLI from source in a child process (for tests that need signals): `node --import tsx run-cli.ts ARGS`. */
import { main } from "../../src/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 2;
  },
);
