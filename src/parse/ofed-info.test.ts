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
  // MLNX_OFED 1.5.x numbered its release with three parts before the dash (`MLNX_OFED_LINUX-1.5.2-2.1.0 (OFED-1.5.2-…):`,
  // shape seen at https://www.open-mpi.org/community/lists/users/2011/02/15760.php under `ofed_info | grep OFED`).
  test("a 1.5.x release's three-part number", () => {
    const r = parseOfedInfo("MLNX_OFED_LINUX-1.5.3-3.1.0 (OFED-1.5.3-20110224-0954):\nMLNX_OFED_LINUX-1.5.3-3.1.0\n");
    expect(r.ok && r.value).toMatchObject({ flavor: "MLNX_OFED", version: "1.5.3-3.1.0" });
  });
  test("a pasted capture with a prompt and indentation", () => {
    const r = parseOfedInfo("  $ ofed_info -s #roce驱动版本\n  MLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    expect(r.ok && r.value).toMatchObject({ status: "present", version: "5.8-1.1.2.1" });
  });
  // A runbook's comment under the command (`# Output: MLNX_OFED_LINUX-23.10-5.1.4.0`, shape seen in a runbook committed
  // to a public repository, index-file 47572989122), pdsh's `host: ` prefix, and the OpenFabrics Alliance's own OFED,
  // whose 1.x numbers have no dash (`OFED-1.2.5.5`, seen in Open MPI's mailing list archive under `ofed_info | head -1`).
  test("a label before the line, and community OFED's dash-less number", () => {
    const r = parseOfedInfo("ofed_info -s\n# Output: MLNX_OFED_LINUX-23.10-5.1.4.0\n");
    expect(r.ok && r.value).toMatchObject({ flavor: "MLNX_OFED", version: "23.10-5.1.4.0" });
    const p = parseOfedInfo("gpu-node-7: OFED-internal-24.10-1.1.4:\n");
    expect(p.ok && p.value).toMatchObject({ flavor: "DOCA-OFED", version: "24.10-1.1.4" });
    const c = parseOfedInfo("login2% /usr/local/ofed/bin/ofed_info | head -1\nOFED-1.2.5.5\n");
    expect(c.ok && c.value).toMatchObject({ flavor: "OFED", version: "1.2.5.5" });
    // A name of MLNX_OFED's own is never dash-less.
    expect(parseOfedInfo("MLNX_OFED_LINUX-1.2.5.5\n").ok).toBe(false);
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

// The ofed_info script's usage: "-n  Show numerical version number only"; a site check reads it as `5.1-2.5.8.0`
// (https://github.com/weka/tools/blob/master/install/scripts.d/ta/195_ofed.sh); pasted under its command in
// https://github.com/Mellanox/nv_peer_memory/issues/79. Own numbers.
describe("ofed_info -n: the number alone, the distribution not named", () => {
  test("under its command, among other commands' output", () => {
    const text =
      "# lspci | grep Mell\n0000:3b:00.0 Ethernet controller: Mellanox\n\n# ofed_info -n\n5.8-3.0.7.0\n\n# uname -r\n";
    const r = parseOfedInfo(text);
    expect(r.ok && r.value).toMatchObject({ status: "present", flavor: null, version: "5.8-3.0.7.0" });
  });
  test("as the whole output (a session's part under its command)", () => {
    const r = parseOfedInfo("23.10-0.5.5.0\n");
    expect(r.ok && r.value).toMatchObject({ status: "present", flavor: null, version: "23.10-0.5.5.0" });
  });
  test("a number under another command, or among other lines, is not a version", () => {
    expect(parseOfedInfo("$ uname -r\n5.15-0.91\n").ok).toBe(false);
    expect(parseOfedInfo("5.8-3.0.7.0\nsomething else\n").ok).toBe(false);
  });
});
