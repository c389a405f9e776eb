import {
  LineScanner
} from "./chunk-H6ZNBHOX.js";
import "./chunk-B5JLMUH7.js";

// src/nccl/log/feeder.ts
var ChunkFeeder = class {
  constructor(st) {
    this.st = st;
    this.scanner = new LineScanner(st);
  }
  st;
  scanner;
  rest = "";
  write(chunk) {
    let from = 0;
    if (this.rest) {
      const nl = chunk.indexOf("\n");
      if (nl < 0) {
        this.rest += chunk;
        if (this.rest.length > 1 << 20) {
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
  line(line) {
    this.scanner.scanLine(line);
  }
  /** The state, after the text that followed the last newline (a cut line) is scanned and noted. */
  finish() {
    if (this.rest) {
      this.st.cutLine = this.rest;
      this.scanner.scanLine(this.rest);
      this.rest = "";
    }
    return this.st;
  }
};
export {
  ChunkFeeder
};
