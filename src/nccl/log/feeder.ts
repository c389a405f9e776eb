import { LineScanner } from "./scan.js";
import type { LogState } from "./state.js";

/** Feeds raw chunks to a scanner line by line, without joining chunks; `finish` handles a last, cut line. */
export class ChunkFeeder {
  private readonly scanner: LineScanner;
  private rest = "";

  constructor(private readonly st: LogState) {
    this.scanner = new LineScanner(st);
  }

  write(chunk: string): void {
    let from = 0;
    if (this.rest) {
      // Finish the partial line without concatenating whole chunks (no multi-MiB copies).
      const nl = chunk.indexOf("\n");
      if (nl < 0) {
        this.rest += chunk;
        if (this.rest.length > 1 << 20) {
          // A "line" over 1 MiB is not a log line (binary data): count it and move on.
          this.st.binaryLines++;
          this.rest = "";
        }
        return;
      }
      this.scanner.scanLine(this.rest + chunk.slice(0, nl));
      this.rest = "";
      from = nl + 1;
    }
    const used = this.scanner.scanChunk(chunk, from);
    this.rest = used < chunk.length ? chunk.slice(used) : "";
  }

  line(line: string): void {
    this.scanner.scanLine(line);
  }

  /** The state, after the text that followed the last newline (a cut line) is scanned and noted. */
  finish(): LogState {
    if (this.rest) {
      this.st.cutLine = this.rest;
      this.scanner.scanLine(this.rest);
      this.rest = "";
    }
    return this.st;
  }
}
