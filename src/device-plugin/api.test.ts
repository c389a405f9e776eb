import { describe, expect, test } from "vitest";
import { loadApi } from "./api.js";

function method(service: "Registration" | "DevicePlugin", name: string) {
  const api = loadApi();
  const svc = service === "Registration" ? api.registrationService : api.devicePluginService;
  const m = svc[name];
  if (!m) throw new Error(`no method ${name}`);
  return m;
}

/** A length-delimited field: tag byte (field << 3 | 2), one-byte length, payload. */
function lenField(field: number, payload: Buffer | string): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  return Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
}

describe("the v1beta1 proto matches the kubelet's wire format", () => {
  test("the method paths are the ones the kubelet calls", () => {
    expect(method("Registration", "Register").path).toBe("/v1beta1.Registration/Register");
    for (const name of [
      "GetDevicePluginOptions",
      "ListAndWatch",
      "GetPreferredAllocation",
      "Allocate",
      "PreStartContainer",
    ]) {
      expect(method("DevicePlugin", name).path).toBe(`/v1beta1.DevicePlugin/${name}`);
    }
    expect(method("DevicePlugin", "ListAndWatch").responseStream).toBe(true);
    expect(method("DevicePlugin", "Allocate").responseStream).toBe(false);
  });

  test("a RegisterRequest encodes version, endpoint, resource_name and options as fields 1–4", () => {
    const bytes = method("Registration", "Register").requestSerialize({
      version: "v1beta1",
      endpoint: "kube-rdma-rdma_hca.sock",
      resource_name: "rdma/hca",
      options: { pre_start_required: false, get_preferred_allocation_available: true },
    });
    // options: field 1 (varint) = 0 → 0x08 0x00 (protobufjs writes a field that was set, even to false; Go's
    // decoder in the kubelet reads it as the default), field 2 (varint) = 1 → 0x10 0x01.
    const expected = Buffer.concat([
      lenField(1, "v1beta1"),
      lenField(2, "kube-rdma-rdma_hca.sock"),
      lenField(3, "rdma/hca"),
      lenField(4, Buffer.from([0x08, 0x00, 0x10, 0x01])),
    ]);
    expect(Buffer.from(bytes).toString("hex")).toBe(expected.toString("hex"));
  });

  test("a kubelet-encoded RegisterRequest decodes to the same fields", () => {
    const m = method("Registration", "Register");
    const wire = Buffer.concat([
      lenField(1, "v1beta1"),
      lenField(2, "x.sock"),
      lenField(3, "rdma/hca"),
      lenField(4, Buffer.from([0x08, 0x01])),
    ]);
    expect(m.requestDeserialize(wire)).toEqual({
      version: "v1beta1",
      endpoint: "x.sock",
      resource_name: "rdma/hca",
      options: { pre_start_required: true, get_preferred_allocation_available: false },
    });
  });

  test("a Device carries ID (1), health (2) and a topology (3) of NUMA nodes whose ID is an int64", () => {
    const bytes = method("DevicePlugin", "ListAndWatch").responseSerialize({
      devices: [{ ID: "mlx5_1", health: "Healthy", topology: { nodes: [{ ID: 1 }] } }],
    });
    const numa = Buffer.from([0x08, 0x01]); // NUMANode.ID = 1 (varint)
    const device = Buffer.concat([lenField(1, "mlx5_1"), lenField(2, "Healthy"), lenField(3, lenField(1, numa))]);
    expect(Buffer.from(bytes).toString("hex")).toBe(lenField(1, device).toString("hex"));
  });

  test("ContainerAllocateResponse: envs is a map (1), devices are DeviceSpecs (3), cdi_devices field 5", () => {
    const m = method("DevicePlugin", "Allocate");
    const bytes = m.responseSerialize({
      container_responses: [
        {
          envs: { NCCL_IB_TIMEOUT: "22" },
          mounts: [],
          devices: [
            { container_path: "/dev/infiniband/rdma_cm", host_path: "/dev/infiniband/rdma_cm", permissions: "rw" },
          ],
          annotations: {},
          cdi_devices: [{ name: "example.com/rdma=mlx5_1" }],
        },
      ],
    });
    const envEntry = lenField(1, Buffer.concat([lenField(1, "NCCL_IB_TIMEOUT"), lenField(2, "22")]));
    const spec = lenField(
      3,
      Buffer.concat([
        lenField(1, "/dev/infiniband/rdma_cm"),
        lenField(2, "/dev/infiniband/rdma_cm"),
        lenField(3, "rw"),
      ]),
    );
    const cdi = lenField(5, lenField(1, "example.com/rdma=mlx5_1"));
    const container = Buffer.concat([envEntry, spec, cdi]);
    expect(Buffer.from(bytes).toString("hex")).toBe(lenField(1, container).toString("hex"));
    expect(m.responseDeserialize(bytes)).toMatchObject({
      container_responses: [{ envs: { NCCL_IB_TIMEOUT: "22" }, cdi_devices: [{ name: "example.com/rdma=mlx5_1" }] }],
    });
  });

  test("a preferred-allocation request keeps available_deviceIDs (1), must_include_deviceIDs (2), allocation_size (3)", () => {
    const m = method("DevicePlugin", "GetPreferredAllocation");
    const inner = Buffer.concat([
      lenField(1, "mlx5_1"),
      lenField(1, "mlx5_2"),
      lenField(2, "mlx5_2"),
      Buffer.from([0x18, 2]),
    ]);
    expect(m.requestDeserialize(lenField(1, inner))).toEqual({
      container_requests: [
        { available_deviceIDs: ["mlx5_1", "mlx5_2"], must_include_deviceIDs: ["mlx5_2"], allocation_size: 2 },
      ],
    });
  });
});
