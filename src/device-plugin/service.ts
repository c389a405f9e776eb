/** The DevicePlugin gRPC service: thin handlers over the running plugin's state. */
import * as grpc from "@grpc/grpc-js";
import { AllocateInvalid, AllocateRefused } from "./allocate.js";
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

/**
 * Why a preferred-allocation request cannot be answered, or null. The kubelet offers only the IDs a plugin serves,
 * asks for at most as many as it offers, and must-includes only offered IDs (kubelet devicemanager,
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/cm/devicemanager/manager.go): anything else is a
 * confused or hostile client, answered InvalidArgument rather than guessed at.
 */
export function impossiblePreference(
  r: { available_deviceIDs: readonly string[]; must_include_deviceIDs: readonly string[]; allocation_size: number },
  served: ReadonlySet<string>,
): string | null {
  const available = new Set(r.available_deviceIDs);
  const unknown = [...available].filter((id) => !served.has(id));
  if (unknown.length)
    return `${unknown.length} available ID(s) this plugin does not serve (e.g. ${JSON.stringify(unknown[0]!.slice(0, 64))})`;
  const notOffered = r.must_include_deviceIDs.filter((id) => !available.has(id));
  if (notOffered.length)
    return `must-include ID(s) not among the available ones (e.g. ${JSON.stringify(notOffered[0]!.slice(0, 64))})`;
  if (!Number.isInteger(r.allocation_size) || r.allocation_size < 1 || r.allocation_size > available.size) {
    return `allocation_size ${r.allocation_size} is not between 1 and the ${available.size} available device(s)`;
  }
  return null;
}

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
      const served = new Set(host.devices().map((d) => d.ID));
      const requests = call.request.container_requests ?? [];
      for (const r of requests) {
        const wrong = impossiblePreference(r, served);
        if (wrong) {
          cb({ code: grpc.status.INVALID_ARGUMENT, details: `kube-rdma GetPreferredAllocation: ${wrong}` });
          return;
        }
      }
      cb(null, {
        container_responses: requests.map((r) => ({
          deviceIDs: preferAllocation(
            placed,
            [...new Set(r.available_deviceIDs)],
            r.must_include_deviceIDs,
            r.allocation_size,
          ),
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
        if (err instanceof AllocateInvalid) {
          cb({ code: grpc.status.INVALID_ARGUMENT, details: `kube-rdma Allocate: ${err.message}` });
          return;
        }
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
