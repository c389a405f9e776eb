import { describe, expect, test } from "vitest";
import { parseSize } from "./parse-size.js";
import { UsageError } from "./spec.js";

describe("sizes on the command line", () => {
  test("Kubernetes-style quantities and plain bytes", () => {
    expect(parseSize("1Gi", "shm-min")).toBe(1024 ** 3);
    expect(parseSize("512Mi", "shm-min")).toBe(512 * 1024 ** 2);
    expect(parseSize("64Ki", "shm-min")).toBe(65536);
    expect(parseSize("1G", "shm-min")).toBe(1e9);
    expect(parseSize("8GiB", "shm-min")).toBe(8 * 1024 ** 3);
    expect(parseSize("1.5Gi", "shm-min")).toBe(1.5 * 1024 ** 3);
    expect(parseSize("1048576", "shm-min")).toBe(1048576);
  });

  test("anything else is a usage error that names the option and shows the units", () => {
    for (const bad of ["", "lots", "1Xi", "-1Gi", "1 Gi Gi"]) {
      expect(() => parseSize(bad, "shm-min")).toThrow(UsageError);
    }
    expect(() => parseSize("lots", "shm-min")).toThrow(/--shm-min expects a size such as 1Gi/);
  });
});
