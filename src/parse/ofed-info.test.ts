import { describe, expect, test } from "vitest";
import { parseOfedInfo } from "./ofed-info.js";

describe("ofed_info -s", () => {
  test("the seed's MLNX_OFED line", () => {
    const r = parseOfedInfo("MLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    expect(r.ok && r.value).toMatchObject({ status: "present", flavor: "MLNX_OFED", version: "5.8-1.1.2.1" });
  });
  test("DOCA-OFED prints OFED-internal", () => {
    const r = parseOfedInfo("OFED-internal-24.01-0.3.3:\n");
    expect(r.ok && r.value).toMatchObject({ flavor: "DOCA-OFED", version: "24.01-0.3.3" });
  });
  test("the first line of a full `ofed_info`", () => {
    const r = parseOfedInfo("MLNX_OFED_LINUX-5.8-1.1.2.1 (OFED-5.8-1.1.2):\n\nclusterkit:\nmlnx_ofed_clusterkit-1.8\n");
    expect(r.ok && r.value).toMatchObject({ flavor: "MLNX_OFED", version: "5.8-1.1.2.1" });
  });
  test("a pasted capture with a prompt and indentation", () => {
    const r = parseOfedInfo("  $ ofed_info -s #roce驱动版本\n  MLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    expect(r.ok && r.value).toMatchObject({ status: "present", version: "5.8-1.1.2.1" });
  });
  test("an inbox rdma-core host: command not found or no output means absent", () => {
    const r = parseOfedInfo("bash: ofed_info: command not found\n");
    expect(r.ok && r.value.status).toBe("absent");
    const e = parseOfedInfo("");
    expect(e.ok && e.value.status).toBe("absent");
  });
  test("anything else is a problem that says what was expected", () => {
    const r = parseOfedInfo("rdma-core 50.0\n");
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.code).toBe("ofed_info.unrecognised");
    expect(r.problems[0]?.message).toMatch(/MLNX_OFED_LINUX-5\.8-1\.1\.2\.1:/);
  });
});
