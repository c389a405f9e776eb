import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/**
 * Standard input as the commands read it: raw chunks as they arrive, never joined into one string unless the caller
 * asks for the whole (small) text. `kubectl logs -f … | kube-rdma analyze -` never ends by itself: Ctrl-C stops the
 * reading (`interrupted()` then says so) and the command reports on what was read.
 */
export type StdinSource = {
  chunks: AsyncIterable<Uint8Array | string>;
  /** True when the reading was stopped by an interrupt (SIGINT) rather than by the end of the input. */
  interrupted: () => boolean;
};

/** A source over a stream (process.stdin); the abort signal ends the iteration quietly, as an end of input would. */
export function streamSource(stream: Readable, signal?: AbortSignal): StdinSource {
  return { chunks: readChunks(stream, signal), interrupted: () => signal?.aborted === true };
}

/** A source over text already in memory (tests, and Io objects without a stream). */
export function textSource(text: string | Promise<string>): StdinSource {
  return {
    chunks: (async function* () {
      const t = await text;
      if (t.length > 0) yield t;
    })(),
    interrupted: () => false,
  };
}

/**
 * Bytes read ahead of the consumer. The stream flows (the kernel pipe is drained as fast as the writer fills it) until
 * this much is queued, then pauses until the consumer has taken half: pulling one chunk at a time instead left the
 * pipe full between pulls and the writer waiting, and halved a pipe's throughput.
 */
const READ_AHEAD_BYTES = 4 << 20;

/** The chunks of a readable stream, ending early and quietly when `signal` aborts. */
export async function* readChunks(stream: Readable, signal?: AbortSignal): AsyncGenerator<Uint8Array | string> {
  const queue: (Uint8Array | string)[] = [];
  let queued = 0;
  let paused = false;
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onData = (chunk: Uint8Array | string) => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= READ_AHEAD_BYTES && !paused) {
      paused = true;
      stream.pause();
    }
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (err: unknown) => {
    failure = err;
    notify();
  };
  stream.on("data", onData);
  stream.once("end", onEnd);
  stream.once("error", onError);
  signal?.addEventListener("abort", notify, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) return;
      if (failure !== null) throw failure;
      const chunk = queue.shift();
      if (chunk !== undefined) {
        queued -= chunk.length;
        if (paused && queued < READ_AHEAD_BYTES / 2) {
          paused = false;
          stream.resume();
        }
        yield chunk;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off("data", onData);
    stream.off("end", onEnd);
    stream.off("error", onError);
    signal?.removeEventListener("abort", notify);
    // Stop reading what nobody will read: an interrupted `kubectl logs -f` or a stream cut short by a size cap.
    if (!ended) stream.destroy();
  }
}

/** Decodes UTF-8 chunks to text, joining sequences split between chunks. */
export async function* decodeChunks(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder("utf8");
  for await (const c of chunks) {
    const text = decodeChunk(decoder, c);
    if (text.length > 0) yield text;
  }
  const tail = decoder.end();
  if (tail.length > 0) yield tail;
}

function decodeChunk(decoder: StringDecoder, c: Uint8Array | string): string {
  return typeof c === "string" ? c : decoder.write(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
}

export type Prefix =
  | { status: "whole"; text: string }
  /**
   * The input goes on past `limit` bytes: `head` is its first `headChars` characters, `raw` the whole input from the
   * start as it arrived (bytes, not decoded: iterate once; each part read so far is let go once it is handed out).
   */
  | { status: "more"; head: string; raw: AsyncIterable<Uint8Array | string>; close: () => Promise<unknown> };

/** The text of `parts`, decoded in one pass (sequences split between parts joined). */
function decodeAll(parts: readonly (Uint8Array | string)[]): string {
  const decoder = new StringDecoder("utf8");
  const texts = parts.map((p) => decodeChunk(decoder, p));
  texts.push(decoder.end());
  return texts.join("");
}

/**
 * Reads until the input ends (whole, decoded) or passes `limit` bytes (more), so that a small paste is analysed as
 * one text and a large stream is never held whole: past the limit, what was read is handed out part by part, raw,
 * for the reader to decode (`decodeChunks`) or to cut into lines itself. Only the raw parts are held meanwhile (no
 * decoded copy beside them), and only the head is decoded before the limit is known to be passed.
 */
export async function readPrefix(
  chunks: AsyncIterable<Uint8Array | string>,
  limit: number,
  headChars = 64 * 1024,
): Promise<Prefix> {
  const it = chunks[Symbol.asyncIterator]();
  const raw: (Uint8Array | string)[] = [];
  let length = 0;
  for (;;) {
    const next = await it.next();
    if (next.done) return { status: "whole", text: decodeAll(raw) };
    raw.push(next.value);
    length += typeof next.value === "string" ? Buffer.byteLength(next.value) : next.value.byteLength;
    if (length > limit) {
      const head = headOf(raw, headChars);
      return { status: "more", head, raw: handOut(raw, it), close: async () => it.return?.(undefined) };
    }
  }
}

/** The first `chars` characters of the parts (decoding only as many parts as that takes). */
function headOf(parts: readonly (Uint8Array | string)[], chars: number): string {
  const decoder = new StringDecoder("utf8");
  let head = "";
  for (const p of parts) {
    if (head.length >= chars) break;
    head += decodeChunk(decoder, p);
  }
  return head.slice(0, chars);
}

async function* handOut<T>(parts: T[], rest: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    while (parts.length > 0) yield parts.shift() as T;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}
