import type { AnalyzeContext, AnalyzeOutcome, AnalyzerKind } from "../../analyze/types.js";
import { type NcclLogData, reportLog } from "./report.js";
import { LineScanner } from "./scan.js";
import { LogState } from "./state.js";

/** A streaming NCCL log analyser: `write` takes raw chunks (lines split here), `push` takes one line. */
export type NcclLogStream = {
  push(line: string): void;
  write(chunk: string): void;
  end(): AnalyzeOutcome & { data: NcclLogData };
};

export function createNcclLogStream(ctx: AnalyzeContext = {}): NcclLogStream {
  const st = new LogState();
  const scanner = new LineScanner(st);
  let rest = "";
  return {
    write(chunk: string) {
      let from = 0;
      if (rest) {
        // Finish the partial line without concatenating whole chunks (no multi-MiB copies).
        const nl = chunk.indexOf("\n");
        if (nl < 0) {
          rest += chunk;
          if (rest.length > 1 << 20) {
            // A "line" over 1 MiB is not a log line (binary data): count it and move on.
            st.binaryLines++;
            rest = "";
          }
          return;
        }
        scanner.scanLine(rest + chunk.slice(0, nl));
        rest = "";
        from = nl + 1;
      }
      const used = scanner.scanChunk(chunk, from);
      rest = used < chunk.length ? chunk.slice(used) : "";
    },
    push(line: string) {
      scanner.scanLine(line);
    },
    end() {
      if (rest) {
        st.cutLine = rest;
        scanner.scanLine(rest);
        rest = "";
      }
      return reportLog(st, ctx.inventory);
    },
  };
}

/** Analyses a whole NCCL log held in memory. */
export function analyzeNcclLog(text: string, ctx: AnalyzeContext = {}): AnalyzeOutcome & { data: NcclLogData } {
  const s = createNcclLogStream(ctx);
  s.write(text);
  return s.end();
}

const INFO_LINE = /^\S+:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN)|NCCL INFO|NCCL WARN/m;

export const ncclLogAnalyzer: AnalyzerKind = {
  kind: "nccl_log",
  detect(head: string): number {
    if (!INFO_LINE.test(head)) return /NCCL version \d+\.\d+\.\d+/.test(head) ? 0.5 : 0;
    // A run.log of nccl-tests also holds NCCL lines; the nccl-tests analyser covers both then.
    return /# nThread \d+ nGpus|Avg bus bandwidth/.test(head) ? 0.6 : 0.9;
  },
  analyze: (text, ctx) => analyzeNcclLog(text, ctx),
  createStream: (ctx) => createNcclLogStream(ctx),
};
