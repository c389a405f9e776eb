/**
 * `fleet bench --ib-wiring FILE --ib-routes FILE`: on InfiniBand, every flow's leaf uplink and spine port from the
 * subnet manager's routes (the switches' forwarding tables over the cables ibnetdiscover printed), so the rail-aware
 * planner's hop rounds run on a real cluster and their findings name cables.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ibRoutesFromText } from "../../fabric/discover/ib-routes.js";
import { type CommandContext, type OptionSpec, str, UsageError } from "../spec.js";
import type { PathSource } from "./fleet-bench-plan.js";

export const IB_ROUTE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "ib-wiring",
    type: "string",
    valueName: "FILE",
    description:
      "InfiniBand: the fabric's cables, `ibnetdiscover > wiring.txt` on a host with the fabric's management access (with --ib-routes; - reads standard input)",
  },
  {
    name: "ib-routes",
    type: "string",
    valueName: "FILE",
    description:
      "InfiniBand: the switches' forwarding tables, `dump_lfts.sh > lfts.txt` (ibroute for every switch) on the same host: every flow's uplink and spine port, so hop tests run (with --ib-wiring and a rail-optimised --topology; - reads standard input)",
  },
];

const HINT =
  "On a host with an InfiniBand port and the management device (/dev/infiniband/umad*): ibnetdiscover > wiring.txt; dump_lfts.sh > lfts.txt; then pass --ib-wiring wiring.txt --ib-routes lfts.txt.";

/** A file's text, or standard input's for `-`. */
async function readText(option: string, file: string, ctx: CommandContext): Promise<string> {
  if (file === "-") return ctx.io.readStdin();
  return readFile(resolve(ctx.io.cwd, file), "utf8").catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--${option} ${file}: cannot read it (${e.code ?? e.message}).`, HINT);
  });
}

const sourceName = (file: string) => (file === "-" ? "standard input" : file);

/**
 * The path source the two files give, or undefined when neither is given. `hcas`: rail r's HCA name. Problems with
 * single flows (a LID a table lacks) are not fatal: those flows' hops stay unknown, and `problems` says why.
 */
export async function ibPathSource(
  ctx: CommandContext,
  hcas: readonly string[],
): Promise<(PathSource & { problems: { first: string[]; total: number } }) | undefined> {
  const wiringFile = str(ctx.values, "ib-wiring");
  const routesFile = str(ctx.values, "ib-routes");
  if (wiringFile === undefined && routesFile === undefined) return undefined;
  if (wiringFile === undefined || routesFile === undefined)
    throw new UsageError(
      `--${wiringFile === undefined ? "ib-routes" : "ib-wiring"} needs --${wiringFile === undefined ? "ib-wiring" : "ib-routes"} too: the tables name ports, the wiring says where each port's cable goes.`,
      HINT,
    );
  if (wiringFile === "-" && routesFile === "-")
    throw new UsageError("--ib-wiring - and --ib-routes - cannot both read standard input.", HINT);
  const read = ibRoutesFromText(
    { text: await readText("ib-wiring", wiringFile, ctx), source: sourceName(wiringFile) },
    { text: await readText("ib-routes", routesFile, ctx), source: sourceName(routesFile) },
    hcas,
  );
  if ("message" in read)
    throw new UsageError(
      read.unsourced
        ? `--ib-${read.input} ${read.input === "wiring" ? wiringFile : routesFile}: ${read.message}`
        : read.message,
      HINT,
    );
  const { trace, problems, shape } = read;
  return { trace, name: `the switches' forwarding tables (${sourceName(routesFile)})`, problems, shape, wiringFile };
}
