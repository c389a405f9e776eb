/**
 * nvidia-smi's box table as pages keep it with its line breaks lost or moved. Shapes seen: a glossary page whose
 * sample table lost every line break (each became a space, the table on one line: index-file 2427528414), a chat
 * transcript that wrapped a 4-GPU table at 78 columns with its continuation lines indented, eating the spaces where it
 * broke (index-file 12645250420), and a page whose text lost its line breaks (a WeChat article). The property: every
 * table the parser reads in the captures, collapsed onto one line or wrapped at any width from 60 columns, reads as
 * the same GPUs, versions included.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { collapsedRows } from "./box-table.js";
import { parseNvidiaSmiTable } from "./nvidia-smi-table.js";

const DIR = join(import.meta.dirname, "..", "..", "fixtures", "captures", "nvidia_smi");

/** What a reader of the table states: the versions and each GPU's index, name, bus id and memory. */
function facts(text: string) {
  const r = parseNvidiaSmiTable(text);
  if (!r.ok) return null;
  const v = r.value;
  return {
    driver: v.driverVersion,
    cuda: v.cudaVersion,
    gpus: v.gpus.map((g) => `${g.index}:${g.name}:${g.busId}:${g.memoryTotalMiB}`),
  };
}

/** Each line break a space: the page kept the text, not its lines. */
const collapsed = (text: string) => text.replace(/\r?\n/g, " ");

/** A window `width` columns wide breaking each line at its last space that fits (a word that does not fit is cut). */
function wordWrapped(text: string, width: number, indent = "  "): string {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    let rest = line;
    while (rest.length > width) {
      let at = rest.lastIndexOf(" ", width);
      if (at <= 0) at = width;
      out.push(indent + rest.slice(0, at).trimEnd());
      rest = rest.slice(at).trimStart();
    }
    out.push(indent + rest);
  }
  return out.join("\n");
}

/** A terminal `width` columns wide: each line cut every `width` characters. */
function hardWrapped(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((l) => (l.length <= width ? [l] : (l.match(new RegExp(`.{1,${width}}`, "g")) ?? [l])))
    .join("\n");
}

/** The tables in the captures that are a box table read with at least one GPU, and nothing else on their lines. */
const tables = readdirSync(DIR)
  .filter((f) => f.endsWith(".txt"))
  .map((f) => ({ name: f, text: readFileSync(join(DIR, f), "utf8").replace(/\r\n/g, "\n") }))
  .filter(({ text }) => (facts(text)?.gpus.length ?? 0) > 0 && /^\+-{20,}/m.test(text));

describe("an nvidia-smi table whose line breaks a page lost or moved", () => {
  test("the captures hold enough whole tables to judge by", () => {
    expect(tables.length).toBeGreaterThanOrEqual(20);
  });

  test("a table on one line, its line breaks spaces, reads as the table did", () => {
    for (const { name, text } of tables) expect({ name, f: facts(collapsed(text)) }).toEqual({ name, f: facts(text) });
  });

  test("a table wrapped by a chat window (at its last space, continuation indented) reads as the table did", () => {
    for (const { name, text } of tables)
      for (const width of [60, 70, 78, 80, 85])
        expect({ name, width, f: facts(wordWrapped(text, width)) }).toEqual({ name, width, f: facts(text) });
  });

  test("a table cut every N columns by a terminal reads as the table did", () => {
    for (const { name, text } of tables)
      for (const width of [64, 79, 80])
        expect({ name, width, f: facts(hardWrapped(text, width)) }).toEqual({ name, width, f: facts(text) });
  });

  test("a line that only mentions a border or a bar is no table", () => {
    expect(collapsedRows(`see the ${"-".repeat(30)} line | and more words ${"x".repeat(200)}`)).toBeNull();
    // Prose after a whole table is not joined to it.
    const table = tables[0]!.text;
    expect(facts(`${table}\nThe GPUs look fine.`)).toEqual(facts(table));
  });
});
