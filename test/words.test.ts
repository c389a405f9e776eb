/**
 * Users never read our design notes. Product text — every string in src/ (help, findings, fixes, reasons, HTML),
 * what the commands print on every example node, the README and docs/ — names things by what they are: never "seed",
 * never which session or machine built what, no bracketed citation tags (sources live in code comments), and no
 * vendor's name in advice that applies to every cluster (a vendor's resource or image name is a fact, and stays).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { main } from "../src/cli/main.js";
import { listExamples } from "../src/examples/index.js";
import { captureIo } from "./support/io.js";

type Rule = { name: string; re: RegExp };
const RULES: Rule[] = [
  { name: "seed", re: /\bseed(?!\s*(?:S\b|N\b|=|:))(?![-_]?(?:ed|s)\b)/i },
  { name: "session", re: /\bsessions?\b/i },
  { name: "build machine", re: /firecracker/i },
  { name: "citation tag", re: /\[[A-Za-z][A-Za-z-]*#\d+\]|\[NT-[a-z]+\]/ },
  { name: "vendor in general advice", re: /\bBaidu\b|\bCCE\b/ },
];
/** Facts that carry a vendor's name or the word legitimately: resource and image names, the `--seed` flag, an ECMP hash seed. */
const ALLOWED = [
  /baidu\.com\/|baidubce\.com/,
  /--seed\b|\bseed S\b|random seed|hash seed|FC_SEED|property tests' starting number/,
  /pasted (terminal )?session|a pasted session|terminal session|ssh session|login session|sessions? of several commands/i,
];

function offences(where: string, text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (ALLOWED.some((a) => a.test(line))) continue;
    for (const r of RULES) if (r.re.test(line)) out.push(`${where}: ${r.name}: ${line.trim().slice(0, 160)}`);
  }
  return out;
}

/** Every string and template literal in a source file (comments are for developers, and may cite sources). */
function literals(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return; // module paths
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    else if (ts.isTemplateExpression(n)) out.push(n.head.text, ...n.templateSpans.map((sp) => sp.literal.text));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function files(dir: string, keep: (f: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, keep) : keep(path) ? [path] : [];
  });
}

describe("product text names things by what they are", () => {
  test("no string in src/ (help, findings, fixes, reasons, HTML) says seed, session, a citation tag or a vendor's advice", () => {
    // The one place old example names live: the aliases that keep scripts written against them working.
    const sources = files("src", (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.includes("/testing/"));
    const found = sources
      .filter((f) => !f.endsWith("src/examples/aliases.ts"))
      // The literal "seed" alone is the name of `fleet bench --seed` (the simulated fleet's random seed).
      .flatMap((f) => literals(f).flatMap((s) => (s === "seed" ? [] : offences(f, s))));
    expect(found).toEqual([]);
    expect(sources.length).toBeGreaterThan(200);
  });

  test("every --help, including each subcommand's", async () => {
    const out: string[] = [];
    const argvs = [
      ["--help"],
      ...COMMANDS.map((c) => [c.name, "--help"]),
      ["fleet", "verify", "--help"],
      ["fleet", "bench", "--help"],
    ];
    for (const argv of argvs) {
      const io = captureIo();
      await main(argv, io);
      out.push(...offences(argv.join(" "), io.out + io.err));
    }
    expect(out).toEqual([]);
  });

  test("what verify, nccl-env and verify -o html print on every example node", async () => {
    const out: string[] = [];
    for (const e of listExamples()) {
      for (const argv of [
        ["verify", "--example", e.name, "--pod"],
        ["nccl-env", "--example", e.name],
        ["verify", "--example", e.name, "-o", "html"],
      ]) {
        const io = captureIo();
        await main(argv, io);
        out.push(...offences(argv.join(" "), io.out + io.err));
      }
    }
    expect(out).toEqual([]);
  });

  test("the README and docs/", () => {
    const docs = files("docs", (f) => f.endsWith(".md"));
    const out = ["README.md", ...docs].flatMap((f) => offences(f, readFileSync(f, "utf8")));
    expect(out).toEqual([]);
  });

  test("`examples` lists names for what they are; the old names still work as aliases", async () => {
    const io = captureIo();
    await main(["examples"], io);
    expect(offences("examples", io.out)).toEqual([]);
    expect(io.out).toMatch(/^a100-8x-roce\s+the A100 RoCE example node: 8×A100/m);
    const old = captureIo();
    expect(await main(["verify", "--example", "a100-8x-roce-seed"], old)).toBe(0);
    expect(old.out).toMatch(/PASS/);
  });
});
