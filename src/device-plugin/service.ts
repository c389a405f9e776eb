/** The DevicePlugin gRPC service: thin handlers over the running plugin's state. */
import * as grpc from "@grpc/grpc-js";
import { AllocateRefused } from "./allocate.js";
import type {
  AllocateRequest,
  AllocateResponse,
  Device,
  DevicePluginOptions,
  ListAndWatchResponse,
  PreferredAllocationRequest,
  PreferredAllocationResponse,
} from "./api.js";
import { type PlacedHca, preferAllocation } from "./preferred.js";

export type ListAndWatchStream = grpc.ServerWritableStream<unknown, ListAndWatchResponse>;

export type ServiceHost = {
  options: () => DevicePluginOptions;
  devices: () => Device[];
  placed: () => readonly PlacedHca[];
  allocate: (req: AllocateRequest) => AllocateResponse;
  /** Keeps the stream to push later lists; the first list is written by the handler. */
  openStream: (stream: ListAndWatchStream) => void;
  allocateFailed: (err: unknown) => void;
};

export function devicePluginHandlers(host: ServiceHost): grpc.UntypedServiceImplementation {
  return {
    GetDevicePluginOptions: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      cb(null, host.options());
    },
    ListAndWatch: (call: ListAndWatchStream) => {
      host.openStream(call);
      call.write({ devices: host.devices() });
    },
    GetPreferredAllocation: (
      call: grpc.ServerUnaryCall<PreferredAllocationRequest, PreferredAllocationResponse>,
      cb: grpc.sendUnaryData<PreferredAllocationResponse>,
    ) => {
      const placed = host.placed();
      cb(null, {
        container_responses: call.request.container_requests.map((r) => ({
          deviceIDs: preferAllocation(placed, r.available_deviceIDs, r.must_include_deviceIDs, r.allocation_size),
        })),
      });
    },
    Allocate: (
      call: grpc.ServerUnaryCall<AllocateRequest, AllocateResponse>,
      cb: grpc.sendUnaryData<AllocateResponse>,
    ) => {
      try {
        cb(null, host.allocate(call.request));
      } catch (err) {
        host.allocateFailed(err);
        if (err instanceof AllocateRefused) {
          cb({ code: grpc.status.NOT_FOUND, details: `kube-rdma refused Allocate: ${err.message}` });
          return;
        }
        cb({ code: grpc.status.INTERNAL, details: `kube-rdma Allocate failed: ${String(err)}` });
      }
    },
    PreStartContainer: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      cb(null, {});
    },
  };
}
