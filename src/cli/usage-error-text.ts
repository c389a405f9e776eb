import { oneLine } from "../core/line-safe.js";
import { terminalSafe } from "../report/registry.js";
import type { UsageError } from "./spec.js";

/**
 * A UsageError as stderr shows it: its lines, each with its own line breaks escaped, then its hint's lines; no control
 * sequence from a quoted server or file reaches the terminal.
 */
export function usageErrorText(command: string, err: UsageError): string {
  const [first = "", ...more] = err.lines.map(oneLine);
  const lines = [`kube-rdma ${command}: ${first}`, ...more, ...err.hintLines.map(oneLine)];
  return terminalSafe(`${lines.join("\n")}\n`);
}
