/**
 * Documentation examples produced by the tool (`npm run docs:examples` rewrites them; doc-examples.test.ts fails when
 * they drift). A block is marked in the Markdown by the comment line
 *
 *   <!-- tool-output: verify --example gid-index-5 -->
 *
 * right before a fenced block; the block becomes `$ kube-rdma ARGS`, then what the command prints to standard output
 * (as in a pipe: 80 columns, no colour), then `[exit N]` when the command does not exit 0.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.js";
import { captureIo } from "./io.js";

/** The Markdown files whose marked blocks are generated. */
export const DOC_FILES = ["docs/reference.md"];

const MARKED = /<!-- tool-output: ([^\n]+?) -->\n```[a-z]*\n[\s\S]*?\n```/g;

/** The argument lists of the marked blocks, in order. */
export function markedCommands(markdown: string): string[] {
  return [...markdown.matchAll(MARKED)].map((m) => m[1]!);
}

async function block(args: string): Promise<string> {
  const io = captureIo();
  const code = await main(args.split(/\s+/).filter(Boolean), io);
  const out = io.out.endsWith("\n") ? io.out : `${io.out}\n`;
  return `<!-- tool-output: ${args} -->\n\`\`\`console\n$ kube-rdma ${args}\n${out}${code === 0 ? "" : `[exit ${code}]\n`}\`\`\``;
}

/** The Markdown with every marked block replaced by the command's current output. */
export async function regenerateDocExamples(markdown: string): Promise<string> {
  const blocks: string[] = [];
  for (const args of markedCommands(markdown)) blocks.push(await block(args));
  let i = 0;
  return markdown.replace(MARKED, () => blocks[i++]!);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const path of DOC_FILES) {
    const url = new URL(`../../${path}`, import.meta.url);
    const before = readFileSync(url, "utf8");
    const after = await regenerateDocExamples(before);
    if (after !== before) writeFileSync(url, after);
    console.log(
      `${path}: ${markedCommands(before).length} example(s)${after === before ? ", current" : ", rewritten"}`,
    );
  }
}
