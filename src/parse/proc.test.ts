import { describe, expect, test } from "vitest";
import { parseCapEff, parseConnectedRoutes, parseDefaultRouteInterface, parseMemlock } from "./proc.js";

const ROUTE =
  "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
  "eth0\t00000000\t013C000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n" +
  "eth0\t003C000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n" +
  "eth1\t00800B19\t00000000\t0001\t0\t0\t0\tE0FFFFFF\t0\t0\t0\n";

describe("/proc facts", () => {
  test("connected subnets: eth0 on 10.0.60.0/24, eth1 on 25.11.128.0/27; the default route and gateways are not subnets", () => {
    const via = "eth2\t0000140A\t013C000A\t0003\t0\t0\t0\t0000FFFF\t0\t0\t0\n"; // 10.20.0.0/16 via a gateway
    const odd = "eth3\t0000140A\t00000000\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0\n"; // mask 255.0.255.0: not a prefix
    const r = parseConnectedRoutes(ROUTE + via + odd);
    expect(r.ok && r.value).toEqual([
      { iface: "eth0", cidr: "10.0.60.0/24" },
      { iface: "eth1", cidr: "25.11.128.0/27" },
    ]);
    expect(parseConnectedRoutes("not a route table").ok).toBe(false);
  });

  test("the default route of the seed host leaves through eth0", () => {
    const r = parseDefaultRouteInterface(ROUTE);
    expect(r.ok && r.value).toBe("eth0");
  });
  test("no default route → null; not a route table → problem", () => {
    const r = parseDefaultRouteInterface(ROUTE.split("\n").slice(0, 1).join("\n"));
    expect(r.ok && r.value).toBeNull();
    expect(parseDefaultRouteInterface("hello").ok).toBe(false);
  });
  test("a full-capability root process has IPC_LOCK; a default pod does not", () => {
    const root = parseCapEff("Name:\tnode\nCapEff:\t000001ffffffffff\n");
    expect(root.ok && root.value).toEqual({ capEff: "000001ffffffffff", ipcLock: true });
    const pod = parseCapEff("CapEff:\t00000000a80425fb\n");
    expect(pod.ok && pod.value.ipcLock).toBe(false);
  });
  test("memlock unlimited and 64 KiB", () => {
    const unl = parseMemlock("Max locked memory         unlimited            unlimited            bytes     \n");
    expect(unl.ok && unl.value).toEqual({ soft: "unlimited", hard: "unlimited" });
    const small = parseMemlock("Max locked memory         65536                65536                bytes     \n");
    expect(small.ok && small.value).toEqual({ soft: 65536, hard: 65536 });
    expect(parseMemlock("Max open files 1024 1024 files").ok).toBe(false);
  });
});
