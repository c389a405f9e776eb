import { main } from "./src/cli/main.js";
import { captureIo } from "./test/support/io.js";

const io = captureIo();
const rc = await main(process.argv.slice(2), io);
process.stdout.write(io.out + io.err + `rc=${rc}\n`);
