/**
 * Detection + parse + findings of big pasted captures (`analyze` minus file I/O).
 * Run: node --import tsx bench/parse.bench.ts
 */
import { cpus, loadavg } from "node:os";
import { detectKind } from "../src/analyze/detect.js";
import { ANALYZERS, analyzeText } from "../src/analyze/index.js";

function showGids(hcas: number, slots: number): string {
  const lines = [
    "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
    "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
  ];
  let n = 0;
  for (let d = 0; d < hcas; d++) {
    for (let i = 0; i < slots; i++) {
      const ip = `10.${d & 255}.${(i >> 1) & 255}.${(i % 200) + 1}`;
      const [a, b, c, e] = ip.split(".").map((x) => Number(x).toString(16).padStart(2, "0"));
      const ver = i % 2 === 0 ? "v1" : "v2";
      lines.push(`mlx5_${d}\t1\t${i}\t0000:0000:0000:0000:0000:ffff:${a}${b}:${c}${e}\t${ip}  \t${ver}\teth${d}`);
      n++;
    }
  }
  lines.push(`n_gids_found=${n}`);
  return `${lines.join("\n")}\n`;
}

function ibvDevinfoVerbose(hcas: number, slots: number): string {
  const out: string[] = [];
  for (let d = 0; d < hcas; d++) {
    out.push(`hca_id:\tmlx5_${d}`, "\ttransport:\t\t\tInfiniBand (0)", "\tfw_ver:\t\t\t\t28.39.1002");
    out.push(
      "\tvendor_part_id:\t\t\t4129",
      "\tphys_port_cnt:\t\t\t1",
      "\t\tport:\t1",
      "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
    );
    out.push(
      "\t\t\tlink_layer:\t\tEthernet",
      "\t\t\tactive_width:\t\t4X (2)",
      "\t\t\tactive_speed:\t\t100.0 Gbps (128)",
    );
    out.push("\t\t\tphys_state:\t\tLINK_UP (5)");
    for (let i = 0; i < slots; i++) {
      out.push(
        `\t\t\tGID[${String(i).padStart(3)}]:\t\t::ffff:10.${d}.${i >> 1}.${(i % 200) + 1}, RoCE v${(i % 2) + 1}`,
      );
    }
  }
  return `${out.join("\n")}\n`;
}

function nvidiaSmiTable(gpus: number): string {
  const out = [
    "+---------------------------------------------------------------------------------------+",
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |",
    "|=========================================+======================+======================|",
  ];
  for (let i = 0; i < gpus; i++) {
    const bus = (0x10 + i).toString(16).toUpperCase().padStart(2, "0");
    out.push(
      `| ${String(i).padStart(3)}  NVIDIA H100 80GB HBM3          On  | 00000000:${bus}:00.0 Off |                    0 |`,
    );
    out.push("| N/A   31C    P0              70W / 700W |      0MiB / 81559MiB |      0%      Default |");
    out.push("|                                         |                      |             Disabled |");
    out.push("+-----------------------------------------+----------------------+----------------------+");
  }
  return `${out.join("\n")}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void, runs: number): number {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** The least any line-oriented reader pays: split into lines and test each against one regex. */
function baseline(text: string): number {
  let n = 0;
  for (const l of text.split("\n")) if (/^\S+\s+\d+/.test(l)) n++;
  return n;
}

type Case = { name: string; text: string; kind: string; targetMs: number; runs: number };
const cases: Case[] = [
  { name: "show_gids 18 HCAs × 256 GIDs", text: showGids(18, 256), kind: "show_gids", targetMs: 50, runs: 15 },
  {
    name: "ibv_devinfo -v 18 HCAs × 255 GIDs",
    text: ibvDevinfoVerbose(18, 255),
    kind: "ibv_devinfo",
    targetMs: 50,
    runs: 15,
  },
  { name: "nvidia-smi table, 100 GPUs", text: nvidiaSmiTable(100), kind: "nvidia_smi", targetMs: 20, runs: 15 },
  {
    name: "show_gids 9 MiB (2,300 HCAs × 52 GIDs)",
    text: showGids(2300, 52),
    kind: "show_gids",
    targetMs: 3000,
    runs: 3,
  },
];

console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} (figures scale with load)`);
let misses = 0;
for (const c of cases) {
  const detected = detectKind(c.text, ANALYZERS).kind;
  if (detected !== c.kind) throw new Error(`${c.name}: detected as ${detected}, expected ${c.kind}`);
  const entry = analyzeText("bench", c.text);
  if (entry.problems?.length) throw new Error(`${c.name}: ${entry.problems[0]!.message}`);
  const ms = time(() => analyzeText("bench", c.text), c.runs);
  const base = time(() => baseline(c.text), c.runs);
  const mib = c.text.length / 1024 / 1024;
  const verdict = ms <= c.targetMs ? "PASS" : "MISS";
  if (verdict === "MISS") misses++;
  console.log(
    `${c.name.padEnd(40)} ${mib.toFixed(2).padStart(6)} MiB  detect+parse+findings ${ms.toFixed(1).padStart(7)} ms ` +
      `(target < ${c.targetMs} ms) ${verdict}; line-scan baseline ${base.toFixed(1)} ms, ratio ${(ms / base).toFixed(1)}×`,
  );
}
console.log(misses === 0 ? "all targets met" : `${misses} target(s) missed`);
