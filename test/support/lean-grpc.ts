/**
 * A minimal unary gRPC client over one HTTP/2 connection on a unix socket, the way the kubelet's Go client talks to
 * a device plugin: one POST per call, a 5-byte length-prefixed protobuf message each way, `grpc-status` in the
 * trailers. It carries none of grpc-js's client machinery (channels, filters, deadlines, retries), so a benchmark
 * through it measures the plugin's side of a call, not the JavaScript client's.
 */
import http2 from "node:http2";
import net from "node:net";
import type * as grpc from "@grpc/grpc-js";

export class LeanGrpcError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** gRPC's length-prefixed framing of one uncompressed message. */
export function grpcFrame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

function unframe(body: Buffer): Buffer {
  if (body.length < 5 || body[0] !== 0) throw new LeanGrpcError(13, "response is not one uncompressed gRPC message");
  const len = body.readUInt32BE(1);
  if (body.length !== 5 + len) throw new LeanGrpcError(13, `response message is ${body.length - 5} bytes, not ${len}`);
  return body.subarray(5);
}

export class LeanGrpcClient {
  private readonly session: http2.ClientHttp2Session;

  constructor(socketPath: string) {
    this.session = http2.connect("http://localhost", { createConnection: () => net.connect(socketPath) });
    this.session.on("error", () => {});
  }

  /** One unary call of `method` (from a grpc-js service definition, for its path and (de)serializers). */
  unary<Req, Res>(method: grpc.MethodDefinition<Req, Res>, request: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      const stream = this.session.request({
        ":method": "POST",
        ":path": method.path,
        "content-type": "application/grpc",
        te: "trailers",
      });
      const chunks: Buffer[] = [];
      let status = -1;
      let message = "";
      const fromHeaders = (h: http2.IncomingHttpHeaders) => {
        if (h["grpc-status"] !== undefined) status = Number(h["grpc-status"]);
        if (typeof h["grpc-message"] === "string") message = decodeURIComponent(h["grpc-message"]);
      };
      stream.on("response", fromHeaders);
      stream.on("trailers", fromHeaders);
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("end", () => {
        if (status !== 0) {
          reject(new LeanGrpcError(status, message || `grpc-status ${status}`));
          return;
        }
        try {
          resolve(method.responseDeserialize(unframe(Buffer.concat(chunks))));
        } catch (err) {
          reject(err);
        }
      });
      stream.end(grpcFrame(method.requestSerialize(request)));
    });
  }

  close(): void {
    this.session.close();
  }
}
