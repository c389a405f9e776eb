import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseDcbPfc, parseEthtoolStats, parseMlnxQos, parseTrafficClass, pauseCountersOf } from "./roce-qos.js";

// Written in the shape `mlnx_qos -i IF` prints (https://community.mellanox.com/docs/DOC-2792); values our own.
const MLNX_QOS_DSCP = [
  "DCBX mode: OS controlled",
  "Priority trust state: dscp",
  "dscp2prio mapping:",
  "\tprio:0 dscp:07,06,05,04,03,02,01,00,",
  "\tprio:1 dscp:15,14,13,12,11,10,09,08,",
  "\tprio:2 dscp:23,22,21,20,19,18,17,16,",
  "\tprio:3 dscp:31,30,29,28,27,26,25,24,",
  "\tprio:4 dscp:39,38,37,36,35,34,33,32,",
  "\tprio:5 dscp:47,46,45,44,43,42,41,40,",
  "\tprio:6 dscp:55,54,53,52,51,50,49,48,",
  "\tprio:7 dscp:63,62,61,60,59,58,57,56,",
  "Cable len: 7",
  "PFC configuration:",
  "\tpriority    0   1   2   3   4   5   6   7",
  "\tenabled     0   0   0   1   0   0   0   0",
  "\tbuffer      0   0   0   1   0   0   0   0",
  "tc: 0 ratelimit: unlimited, tsa: vendor",
  "\t priority:  1",
  "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%",
  "\t priority:  3",
  "",
].join("\n");

// `ethtool -S eth2` on an mlx5 port, cut to the pause counters and neighbours (shape of the mlx5 driver's output).
const ETHTOOL_S = [
  "NIC statistics:",
  "     rx_packets: 918273",
  "     tx_packets: 827364",
  "     rx_prio0_pause: 0",
  "     tx_prio0_pause: 0",
  "     rx_prio3_pause: 1520",
  "     tx_prio3_pause: 37",
  "     rx_prio3_pause_duration: 2048",
  "",
].join("\n");

describe("mlnx_qos -i IF", () => {
  test("DSCP trust with PFC on priority 3: trust, the DSCP map (26 → 3) and the PFC priorities", () => {
    const r = parseMlnxQos(MLNX_QOS_DSCP);
    expect(r.ok && r.value.trust).toBe("dscp");
    expect(r.ok && r.value.pfcEnabled).toEqual([3]);
    expect(r.ok && r.value.dscpToPriority[26]).toBe(3);
    expect(r.ok && r.value.dscpToPriority[0]).toBe(0);
  });

  test("PCP trust without the DSCP block", () => {
    const text = MLNX_QOS_DSCP.replace("trust state: dscp", "trust state: pcp").replace(
      /dscp2prio[\s\S]*?Cable/,
      "Cable",
    );
    const r = parseMlnxQos(text);
    expect(r.ok && r.value).toMatchObject({ trust: "pcp", dscpToPriority: {}, pfcEnabled: [3] });
  });

  test("other text is a problem saying what was expected", () => {
    const r = parseMlnxQos("mlnx_qos: command not found\n");
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.message).toMatch(/Priority trust state/);
  });
});

describe("ethtool -S IF", () => {
  test("the per-priority pause counters, and only them", () => {
    const r = parseEthtoolStats(ETHTOOL_S);
    expect(r.ok && r.value.rx_packets).toBe(918273);
    expect(r.ok && pauseCountersOf(r.value)).toEqual({ rx: { 0: 0, 3: 1520 }, tx: { 0: 0, 3: 37 } });
  });

  test("statistics without pause counters have none; text that is not ethtool -S is a problem", () => {
    const r = parseEthtoolStats("NIC statistics:\n     rx_packets: 1\n");
    expect(r.ok && pauseCountersOf(r.value)).toBe(null);
    expect(parseEthtoolStats("no stats available\n").ok).toBe(false);
  });
});

describe("tc/1/traffic_class", () => {
  test("`Global tclass=106` is 106; an empty file is no global class", () => {
    expect(parseTrafficClass("Global tclass=106\n")).toMatchObject({ ok: true, value: 106 });
    expect(parseTrafficClass("")).toMatchObject({ ok: true, value: null });
    expect(parseTrafficClass("Global tclass=999\n").ok).toBe(false);
  });
});

test("any text: each parser answers with data or problems, never a throw", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.constantFrom(MLNX_QOS_DSCP, ETHTOOL_S).map((s) => s.slice(0, 90)),
      ),
      (t) => {
        for (const r of [parseMlnxQos(t), parseEthtoolStats(t), parseTrafficClass(t)]) {
          expect(r.ok || r.problems.length > 0).toBe(true);
        }
      },
    ),
  );
});

describe("dcb pfc show dev IF", () => {
  // dcb-pfc(8) (https://man7.org/linux/man-pages/man8/dcb-pfc.8.html) prints `prio-pfc`; its first release printed
  // `pg-pfc` (https://mail-archive.com/netdev@vger.kernel.org/msg377425.html). Our own values.
  test("the priorities with PFC on", () => {
    const r = parseDcbPfc(
      "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:on 5:off 6:off 7:off\n",
    );
    expect(r.ok && r.value).toEqual([3, 4]);
    const old = parseDcbPfc(
      "pfc-cap 8 macsec-bypass on delay 0\npg-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off\n",
    );
    expect(old.ok && old.value).toEqual([]);
  });

  test("anything else is a problem", () => {
    expect(parseDcbPfc("Error: Unknown device\n").ok).toBe(false);
  });
});
