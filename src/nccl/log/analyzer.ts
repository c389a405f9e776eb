import type { AnalyzeContext, AnalyzeOutcome, AnalyzerKind } from "../../analyze/types.js";
import { ChunkFeeder } from "./feeder.js";
import { analyzeNcclLogFile } from "./file.js";
import { type NcclLogData, reportLog } from "./report.js";
import { LogState } from "./state.js";

/** A streaming NCCL log analyser: `write` takes raw chunks (lines split here), `push` takes one line. */
export type NcclLogStream = {
  push(line: string): void;
  write(chunk: string): void;
  end(): AnalyzeOutcome & { data: NcclLogData };
};

export function createNcclLogStream(ctx: AnalyzeContext = {}): NcclLogStream {
  const feeder = new ChunkFeeder(new LogState());
  return {
    write: (chunk: string) => feeder.write(chunk),
    push: (line: string) => feeder.line(line),
    end: () => reportLog(feeder.finish(), ctx.inventory),
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
    return /^\s*(?:#\s*)?nThread \d+ nGpus|Avg bus bandwidth|^\s*(?:#\s*)?size\s+count\s+type/m.test(head) ? 0.6 : 0.9;
  },
  analyze: (text, ctx) => analyzeNcclLog(text, ctx),
  createStream: (ctx) => createNcclLogStream(ctx),
  analyzeFile: (path, ctx) => analyzeNcclLogFile(path, ctx),
};
