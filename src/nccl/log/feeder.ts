import { StringDecoder } from "node:string_decoder";
import { lineFilter } from "./filter/line-filter.js";
import { LineScanner } from "./scan.js";
import { LogState } from "./state.js";

/**
 * Text is decoded and scanned 64 KiB at a time: V8 makes short strings in its young space, cheaply, while one
 * multi-MiB string costs about four times as much per byte to make and to collect.
 */
const PIECE_BYTES = 64 << 10;

/**
 * Scans the bytes of a log part into a fresh state (UTF-8, split sequences handled): `fill` puts the next bytes into
 * the buffer it is given and returns how many (0: no more). The bytes go into the line filter's memory
 * (filter/line-filter.ts), and only the lines it passes through are decoded and scanned; without the filter every
 * piece is.
 */
export function scanBytes(fill: (into: Buffer) => number): LogState {
  const st = new LogState();
  const feeder = new ChunkFeeder(st);
  const decoder = new StringDecoder("utf8");
  const filter = lineFilter();
  filter?.begin(st);
  const plain = filter ? null : Buffer.allocUnsafe(PIECE_BYTES);
  for (;;) {
    const into = filter ? filter.room() : plain!;
    const n = fill(into);
    if (n === 0) break;
    feeder.write(decoder.write(filter ? filter.run(n) : into.subarray(0, n)));
  }
  if (filter) {
    feeder.write(decoder.write(filter.flush()));
    filter.finish();
  }
  const tail = decoder.end();
  if (tail) feeder.write(tail);
  return feeder.finish();
}

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
