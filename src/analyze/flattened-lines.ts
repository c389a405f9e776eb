/**
 * A capture whose line breaks a page or a chat turned into spaces: a whole `ibstat` or `ibv_devinfo` block, or an
 * nccl-tests run, on one line after the prose that introduced it (a documentation page's text copied with its layout
 * lost, shape seen in a Japanese edition of a vendor's InfiniBand guide,
 * https://access.redhat.com/documentation/ja-jp/red_hat_enterprise_linux/9/html/configuring_infiniband_and_rdma_networks/testing-infiniband-networks_configuring-infiniband-and-rdma-networks,
 * and in a notes page flattened with its inline ``` fences, https://hackmd.io/@sfantao/lumi-training-sto-2026). Each tool prints one field to a line, so a line that holds several of one
 * tool's field labels proves the flattening; it is cut before each label again. Pure.
 */

/** A tool's field labels: each begins a line of its output, so each begins a line again. */
type Vocabulary = { name: string; label: RegExp; least: number };

/**
 * `ibstat`'s fields (infiniband-diags `ibstat.c`: `CA '%s'`, `CA type:`, `Port %d:`, `State:`, `Physical state:`,
 * `Rate:`, `Base lid:`, `LMC:`, `SM lid:`, `Capability mask:`, `Port GUID:`, `Link layer:`).
 */
const IBSTAT: Vocabulary = {
  name: "ibstat",
  label:
    /(?<=\s)(?:CA '[^'\s]+'|CA type:|Number of ports:|Firmware version:|Hardware version:|Node GUID:|System image GUID:|Port \d+:|State:|Physical state:|Rate:|Base lid:|LMC:|SM lid:|Capability mask:|Port GUID:|Link layer:)(?=\s|$)/g,
  least: 4,
};

/**
 * `ibv_devinfo`'s fields (rdma-core `libibverbs/examples/devinfo.c`: `hca_id:`, `transport:`, `fw_ver:`, …, `port:`,
 * `state:`, `max_mtu:`, `active_mtu:`, `sm_lid:`, `port_lid:`, `port_lmc:`, `link_layer:`, and -v's `GID[%3d]:`).
 */
const IBV_DEVINFO: Vocabulary = {
  name: "ibv_devinfo",
  label:
    /(?<=\s)(?:hca_id:|transport:|fw_ver:|node_guid:|sys_image_guid:|vendor_id:|vendor_part_id:|hw_ver:|board_id:|phys_port_cnt:|port:|state:|max_mtu:|active_mtu:|sm_lid:|port_lid:|port_lmc:|link_layer:|max_msg_sz:|active_width:|active_speed:|phys_state:|GID\[\s*\d+\]:)(?=\s|$)/g,
  least: 4,
};

/**
 * nccl-tests' lines (`common.cu`): each header line starts with `# `, each result row with its size, count and type
 * (`2097152  1048576  half  sum  -1 …`, the redop and root columns of the collectives that have them).
 */
const NCCL_TESTS: Vocabulary = {
  name: "nccl_tests",
  label:
    /(?<=\s)(?:# |\d+ +\d+ +(?:float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|fp8_e4m3|fp8_e5m2|f8e4m3|f8e5m2|char|int|float16|float32|float64)\s)/g,
  least: 6,
};

/**
 * `ibdev2netdev`'s mappings (MLNX_OFED's script: `mlx5_0 port 1 ==> ib0 (Up)`, and `-v`'s
 * `0000:3b:00.0 mlx5_6 (MT4119 - …) … port 1 (ACTIVE) ==> ens2f0 (Up)`): each starts a line (flattened `-v` output
 * seen at https://docs.nvidia.com/networking/display/MLNXOFEDv492240/Downloading+Mellanox+OFED).
 */
const IBDEV2NETDEV: Vocabulary = {
  name: "ibdev2netdev",
  label:
    /(?<=\s)(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] (?=[A-Za-z][\w.-]* \()|[A-Za-z][\w.-]* port \d+ ==> )/g,
  least: 3,
};

const VOCABULARIES = [IBSTAT, IBV_DEVINFO, NCCL_TESTS, IBDEV2NETDEV];

/** Vocabularies whose labels repeat for each record (a row, a mapping): every one counts, not only distinct ones. */
const REPEATED = new Set([NCCL_TESTS, IBDEV2NETDEV]);

/** A line this long at least, before it is read as several. */
const LONG = 120;

/** Inline code fences around the output on a flattened line (```` ``` ```` between words). */
const INLINE_FENCE = /\s*```\s*/g;

/** How many distinct labels of `v` the line holds (of a repeated record's: how many labels at all). */
function labelsIn(line: string, v: Vocabulary): number {
  const found = line.match(v.label) ?? [];
  return REPEATED.has(v) ? found.length : new Set(found.map((l) => l.replace(/\d+/g, "N"))).size;
}

/** The line cut before each of the vocabulary's labels (and at inline fences), or null when it proves no flattening. */
export function unflattenLine(line: string): string[] | null {
  if (line.length < LONG) return null;
  const v = VOCABULARIES.find((x) => labelsIn(line, x) >= x.least);
  if (!v) return null;
  return line
    .split(INLINE_FENCE)
    .flatMap((part) => part.replace(v.label, "\n$&").split("\n"))
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
}

/** Every flattened line cut into the lines it was made of; null when no line proves flattening. */
export function flattenedLinesOff(lines: readonly string[]): string[] | null {
  let found = false;
  const out = lines.flatMap((l) => {
    const parts = unflattenLine(l);
    if (!parts) return [l];
    found = true;
    return parts;
  });
  return found ? out : null;
}
