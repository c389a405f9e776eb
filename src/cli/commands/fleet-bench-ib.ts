/**
 * `fleet bench --ib-wiring FILE --ib-routes FILE`: on InfiniBand, every flow's leaf uplink and spine port from the
 * subnet manager's routes (the switches' forwarding tables over the cables ibnetdiscover printed), so the rail-aware
 * planner's hop rounds run on a real cluster and their findings name cables.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ibNames } from "../../fabric/discover/ib-paths.js";
import { routeTracer, tableTrace } from "../../fabric/discover/ib-route-trace.js";
import { ibFabricFromText } from "../../fabric/discover/ib-topology.js";
import { parseForwardingTables } from "../../fabric/discover/lft.js";
import { type CommandContext, type OptionSpec, str, UsageError } from "../spec.js";
import type { PathSource } from "./fleet-bench-plan.js";

export const IB_ROUTE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "ib-wiring",
    type: "string",
    valueName: "FILE",
    description:
      "InfiniBand: the fabric's cables, `ibnetdiscover > wiring.txt` on a host with the fabric's management access (with --ib-routes)",
  },
  {
    name: "ib-routes",
    type: "string",
    valueName: "FILE",
    description:
      "InfiniBand: the switches' forwarding tables, `dump_lfts.sh > lfts.txt` (ibroute for every switch) on the same host: every flow's uplink and spine port, so hop tests run (with --ib-wiring and a rail-optimised --topology)",
  },
];

const HINT =
  "On a host with an InfiniBand port and the management device (/dev/infiniband/umad*): ibnetdiscover > wiring.txt; dump_lfts.sh > lfts.txt; then pass --ib-wiring wiring.txt --ib-routes lfts.txt.";

async function readText(option: string, file: string, cwd: string): Promise<string> {
  return readFile(resolve(cwd, file), "utf8").catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--${option} ${file}: cannot read it (${e.code ?? e.message}).`, HINT);
  });
}

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
  const ib = ibFabricFromText(await readText("ib-wiring", wiringFile, ctx.io.cwd), wiringFile, hcas);
  if (typeof ib === "string") throw new UsageError(ib, HINT);
  const tables = parseForwardingTables(await readText("ib-routes", routesFile, ctx.io.cwd), routesFile);
  if (typeof tables === "string") throw new UsageError(tables, HINT);
  const names = ibNames(ib.wiring, ib.found);
  if (typeof names === "string") throw new UsageError(`--ib-wiring ${wiringFile}: ${names}`, HINT);
  const { trace, problems } = tableTrace(routeTracer(ib.links, tables), names, hcas);
  return { trace, name: `the switches' forwarding tables (${routesFile})`, problems };
}
