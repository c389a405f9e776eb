/**
 * The switches' linear forwarding tables as `ibroute LID` prints them (and `dump_lfts.sh`, which runs it for every
 * switch the subnet manager knows):
 *
 *   Unicast lids [0x0-0x2f] of switch Lid 11 guid 0x0002c90300a00000 (su0-leaf-r0):
 *     Lid  Out   Destination
 *          Port     Info
 *   0x0001 033 : (Switch portguid 0x…: 'spine-1')
 *   0x0065 001 : (Channel Adapter portguid 0x…: 'gpu-a mlx5_0')
 *   14 valid lids dumped
 *
 * Each line: a destination LID and the port the switch sends it out of (000: the switch itself). `ibroute -n` prints
 * the LID and port only. Shape from infiniband-diags' ibroute.c (dump_unicast_tables, dump_lid) in
 * github.com/linux-rdma/rdma-core. Pure.
 */

export type ForwardingTable = {
  /** The switch's node GUID, normalised (lower case, no leading zeros). */
  guid: string;
  /** Its description as printed (the node name map's name where one was given). */
  desc: string;
  /** Its own LID, when the table was read by LID. */
  lid?: number;
  /** Destination LID → out port. */
  out: Map<number, number>;
  /** Destination LID → what the switch resolved it to (`'gpu-a mlx5_0'`), where printed. */
  dest: Map<number, string>;
};

const HEADER =
  /^Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch (.*?)\s*guid 0x([0-9a-fA-F]+)\s*\((.*)\):\s*$/;
const ENTRY = /^0x([0-9a-fA-F]+)\s+(\d+)(?:\s*:\s*(.*))?$/;
const DEST = /'(.*)'\)\s*$/;

const norm = (guid: string) => guid.toLowerCase().replace(/^0+(?=.)/, "");

/** Every switch's table in the text, or a message saying what was expected and what to run. */
export function parseForwardingTables(text: string, source: string): ForwardingTable[] | string {
  const tables: ForwardingTable[] = [];
  let table: ForwardingTable | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const h = HEADER.exec(line);
    if (h) {
      table = { guid: norm(h[2]!), desc: h[3]!.trim(), out: new Map(), dest: new Map() };
      const lid = /\bLid (\d+)/.exec(h[1]!);
      if (lid) table.lid = Number(lid[1]);
      tables.push(table);
      continue;
    }
    if (/^\d+ (valid )?lids dumped/.test(line)) {
      table = undefined;
      continue;
    }
    const e = table ? ENTRY.exec(line) : null;
    if (!e || !table) continue;
    const lid = Number.parseInt(e[1]!, 16);
    const port = Number(e[2]);
    if (port === 255) continue; // `ibroute -a`: no route to this LID (an entry past the switch's ports)
    table.out.set(lid, port);
    const d = e[3] ? DEST.exec(e[3]) : null;
    if (d) table.dest.set(lid, d[1]!);
  }
  if (tables.length === 0)
    return `${source} holds no forwarding table: expected \`ibroute\` output, a block per switch starting "Unicast lids [0x0-0x…] of switch Lid N guid 0x… (name):" followed by lines "0x0005 017 : (…)". On a host with the subnet manager's fabric access run dump_lfts.sh > lfts.txt (or ibroute SWITCH_LID for each switch).`;
  return tables;
}
