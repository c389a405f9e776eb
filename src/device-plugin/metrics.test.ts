import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { createMetrics, parseListenAddress, serveMetrics } from "./metrics.js";

function send(port: number, method: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/metrics", method }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the metrics endpoint", () => {
  test("a port without a host listens on 127.0.0.1 only; 0.0.0.0 must be asked for", () => {
    expect(parseListenAddress(":9465")).toEqual({ host: "127.0.0.1", port: 9465 });
    expect(parseListenAddress("9465")).toEqual({ host: "127.0.0.1", port: 9465 });
    expect(parseListenAddress("0.0.0.0:9465")).toEqual({ host: "0.0.0.0", port: 9465 });
  });

  test("GET /metrics answers; a request with a body is refused (413) unread, other methods 405", async () => {
    const server = await serveMetrics(createMetrics("rdma/hca").registry, { host: "127.0.0.1", port: 0 });
    try {
      const port = (server.address() as AddressInfo).port;
      expect(await send(port, "GET")).toBe(200);
      expect(await send(port, "POST", "x".repeat(1024 * 1024))).toBe(413);
      expect(await send(port, "DELETE")).toBe(405);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
