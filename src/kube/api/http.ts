/**
 * The one HTTP layer under every Kubernetes call kube-rdma makes (the typed clients, the objects client and
 * watches): each answer's body is read up to a cap and no further, and a successful answer must be what the API server
 * sends (a JSON object; text for a pod log) before anything uses it. A server or proxy that streams without end, or
 * answers with an HTML page, ends the request with an error that says so; the deadline of each request is its
 * AbortSignal (client.ts sets one on every request).
 */
import * as http from "node:http";
import * as https from "node:https";
import type { Readable } from "node:stream";
import * as zlib from "node:zlib";
import {
  type HttpLibrary,
  HttpMethod,
  type KubeConfig,
  RequestContext,
  ResponseContext,
  SelfDecodingBody,
  wrapHttpLibrary,
} from "@kubernetes/client-node";
import { ResponseTooLargeError, UnexpectedAnswerError } from "./errors.js";

import { type BodyCaps, DEFAULT_CAPS, MAX_WATCH_EVENT_BYTES } from "./limits.js";

export { ResponseTooLargeError, UnexpectedAnswerError };

/** The media type of a Content-Type header, lower case, without parameters (`application/json`). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether the request reads a pod's log (text, not an object). */
function isLogPath(url: URL): boolean {
  return /\/pods\/[^/]+\/log$/.test(url.pathname);
}

/**
 * The cap on the answer to `url`: a log read that sets limitBytes gets no more than it asked for (the API server
 * sends at most that: https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#read-log-of-the-specified-pod),
 * any other log read the log cap, every other answer the response cap.
 */
export function capFor(url: URL, caps: BodyCaps): number {
  if (!isLogPath(url)) return caps.responseBytes;
  const asked = Number(url.searchParams.get("limitBytes"));
  return Number.isInteger(asked) && asked > 0 ? asked : caps.logBytes;
}

/**
 * Why a successful answer cannot be used, or null: every API answer but a log is a JSON object
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/); no answer is an HTML page.
 */
export function answerDefect(url: URL, contentType: string | undefined, body: Buffer): string | null {
  const type = mediaType(contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return `an HTML page (${type})`;
  if (isLogPath(url)) return null;
  if (type !== "application/json") return type === "" ? "an answer with no content type" : `${type} content`;
  let i = 0;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  if (i === body.length) return "an empty answer";
  return body[i] === 0x7b
    ? null
    : `JSON that is not an object (${JSON.stringify(body.subarray(i, i + 40).toString())})`;
}

/**
 * Whether `path` names a collection (`/api/v1/nodes`, `/apis/apps/v1/namespaces/ns/daemonsets`): a GET of it is a
 * list. Paths: https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-uris
 */
export function isCollectionPath(path: string): boolean {
  const segs = path.split("/").filter((s) => s !== "");
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 2) rest = segs.slice(2);
  else if (segs[0] === "apis" && segs.length >= 3) rest = segs.slice(3);
  else return false;
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  return rest.length === 1;
}

/**
 * Why the answer to a list cannot be used, or null: a list is an object whose `items` is an array of objects (a
 * Status, `{}` or `items: "x"` where a list was asked for would otherwise reach code that iterates it).
 */
export function listDefect(body: Buffer): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return "JSON that does not parse";
  }
  const o = parsed as { kind?: unknown; items?: unknown };
  const kind = typeof o.kind === "string" ? ` (kind ${JSON.stringify(o.kind.slice(0, 60))})` : "";
  if (!Array.isArray(o.items)) return `an object with no list of items${kind}`;
  if (!o.items.every((i) => typeof i === "object" && i !== null && !Array.isArray(i)))
    return `a list whose items are not all objects${kind}`;
  return null;
}

/** The headers of a request with its body's length, as one object of strings. */
function requestHeaders(ctx: RequestContext, body: string | undefined): Record<string, string> {
  const headers = { ...ctx.getHeaders() };
  if (body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
  return headers;
}

/** Response headers as client-node wants them: one string each (repeated ones joined with ", "). */
function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

type Opened = { res: http.IncomingMessage; url: URL; cut: (err: Error) => void };

/**
 * The answer's body as the server meant it: a proxy may compress an answer nobody asked to be compressed (this client
 * sends no Accept-Encoding), so gzip, deflate and br are inflated here, and every cap counts the inflated bytes (a
 * small compressed answer that inflates without end is cut like any other). An encoding this client cannot read is
 * an error that names it. Codings: https://www.rfc-editor.org/rfc/rfc9110#section-8.4.1
 */
export function decodedBody(o: Opened): Readable {
  const codings = (o.res.headers["content-encoding"] ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  let body: Readable = o.res;
  // Codings are listed in the order they were applied: undo them from the last.
  for (const coding of codings.reverse()) {
    const inflate = INFLATERS[coding];
    if (!inflate)
      throw new UnexpectedAnswerError(o.url.pathname, `an answer in an encoding this client cannot read (${coding})`);
    const next = inflate();
    body.on("error", (err) => next.destroy(err));
    body = body.pipe(next);
  }
  if (body !== o.res) o.res.on("aborted", () => body.emit("aborted"));
  return body;
}

const INFLATERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** Sends the request of `ctx` (its method, headers, body, agent and signal); resolves once the answer's head arrives. */
function open(ctx: RequestContext): Promise<Opened> {
  const url = new URL(ctx.getUrl());
  const raw = ctx.getBody();
  if (raw !== undefined && typeof raw !== "string") {
    return Promise.reject(new Error(`request bodies other than text are not sent (${ctx.getUrl()})`));
  }
  const signal = ctx.getSignal();
  return new Promise<Opened>((resolve, reject) => {
    const send = url.protocol === "https:" ? https.request : http.request;
    const agent = ctx.getAgent();
    const req = send(
      url,
      {
        method: ctx.getHttpMethod(),
        headers: requestHeaders(ctx, raw),
        ...(agent ? { agent } : {}),
        ...(signal ? { signal } : {}),
      },
      (res) =>
        resolve({
          res,
          url,
          cut: (err) => {
            res.destroy(err);
            req.destroy();
          },
        }),
    );
    req.on("error", reject);
    req.end(raw);
  });
}

/** Reads the whole body of `o.res`, at most `cap` bytes (else ResponseTooLargeError, the stream closed at once). */
function readCapped(o: Opened, cap: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(body!);
    };
    const tooLarge = () => {
      const err = new ResponseTooLargeError(o.url.pathname, cap);
      settle(err);
      o.cut(err);
    };
    const declared = Number(o.res.headers["content-length"]);
    if (Number.isFinite(declared) && declared > cap) return tooLarge();
    let body: Readable;
    try {
      body = decodedBody(o);
    } catch (err) {
      settle(err as Error);
      return o.cut(err as Error);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > cap) {
        chunks.length = 0;
        return tooLarge();
      }
      chunks.push(chunk);
    });
    const unreadable = (err: Error) =>
      body === o.res
        ? err
        : new UnexpectedAnswerError(o.url.pathname, `a compressed answer that does not inflate (${err.message})`);
    body.on("error", (err) => settle(unreadable(err)));
    body.on("aborted", () => settle(Object.assign(new Error("the answer was cut off"), { name: "AbortError" })));
    body.on("end", () => settle(null, Buffer.concat(chunks, size)));
  });
}

/** One request: its answer read within `caps` and, when successful, checked before use. */
export async function sendBounded(ctx: RequestContext, caps: BodyCaps = DEFAULT_CAPS): Promise<ResponseContext> {
  const o = await open(ctx);
  const body = await readCapped(o, capFor(o.url, caps));
  const status = o.res.statusCode ?? 0;
  const headers = flatHeaders(o.res.headers);
  if (status >= 200 && status < 300) {
    const list = ctx.getHttpMethod() === HttpMethod.GET && isCollectionPath(o.url.pathname);
    const defect = answerDefect(o.url, headers["content-type"], body) ?? (list ? listDefect(body) : null);
    if (defect !== null) throw new UnexpectedAnswerError(o.url.pathname, defect);
  }
  return new ResponseContext(status, headers, new SelfDecodingBody(Promise.resolve(body)));
}

/** The client-node HttpLibrary that sends every request of a configuration through sendBounded. */
export function boundedHttpLibrary(caps: BodyCaps = DEFAULT_CAPS): HttpLibrary {
  return wrapHttpLibrary({ send: (ctx) => sendBounded(ctx, caps) });
}

/** One event of a watch stream (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes). */
export type WatchEvent = { type: string; object: unknown };

/**
 * Watches `path` (with `query`) until the server ends the stream, `signal` aborts, or an event passes
 * MAX_WATCH_EVENT_BYTES; calls `onEvent` for each event line that is a JSON object with a `type`. Resolves when the
 * stream is over, however it ended; rejects when the watch could not be opened (a refusal has the HTTP status as
 * `code`). An abort always ends it: no socket is left open behind it.
 */
export async function watchEvents(
  kc: KubeConfig,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal,
  onEvent: (e: WatchEvent) => void,
): Promise<void> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error("the kubeconfig names no current cluster");
  const url = new URL(server.replace(/\/+$/, "") + path);
  url.searchParams.set("watch", "true");
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const ctx = new RequestContext(url.toString(), HttpMethod.GET);
  ctx.setHeaderParam("Accept", "application/json");
  await kc.applySecurityAuthentication(ctx);
  ctx.setSignal(signal);
  const o = await open(ctx);
  if (o.res.statusCode !== 200) {
    o.cut(new Error("refused"));
    throw Object.assign(new Error(`the watch of ${path} was refused (HTTP ${o.res.statusCode})`), {
      code: o.res.statusCode,
    });
  }
  let body: Readable;
  try {
    body = decodedBody(o);
  } catch (err) {
    o.cut(err as Error);
    throw err;
  }
  await new Promise<void>((resolve) => {
    let pending = "";
    const finish = () => {
      signal.removeEventListener("abort", stop);
      resolve();
    };
    const stop = () => o.cut(new Error("watch ended"));
    signal.addEventListener("abort", stop, { once: true });
    body.setEncoding("utf8");
    body.on("data", (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const event = parseEvent(line);
        if (event) onEvent(event);
        nl = pending.indexOf("\n");
      }
      if (pending.length > MAX_WATCH_EVENT_BYTES)
        o.cut(new ResponseTooLargeError(o.url.pathname, MAX_WATCH_EVENT_BYTES));
    });
    body.on("error", finish);
    body.on("end", finish);
    body.on("close", finish);
    // An inflater ends after the last bytes it was given; a connection that closes before the answer is complete
    // ends the watch at once.
    if (body !== o.res) o.res.on("close", () => o.res.complete || finish());
  });
}

function parseEvent(line: string): WatchEvent | null {
  try {
    const e = JSON.parse(line) as unknown;
    if (typeof e !== "object" || e === null || typeof (e as { type?: unknown }).type !== "string") return null;
    return e as WatchEvent;
  } catch {
    return null;
  }
}
