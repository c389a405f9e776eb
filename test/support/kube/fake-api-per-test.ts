import type { ServerResponse } from "node:http";
import { afterEach } from "vitest";
import { type FakeApi, type FakeApiOptions, type Obj, startFakeApi } from "./fake-api.js";

/**
 * A fake API server for each test of a file: `start` it in the test; after the test, the answers it held back (a
 * stalled server's, pushed to `held`) are destroyed and the server closed.
 */
export function fakeApiPerTest(): {
  start: (objects: Record<string, Obj[]>, opts?: FakeApiOptions) => Promise<FakeApi>;
  held: ServerResponse[];
} {
  let api: FakeApi | undefined;
  const held: ServerResponse[] = [];
  afterEach(async () => {
    for (const r of held.splice(0)) r.destroy();
    await api?.close();
    api = undefined;
  });
  return { held, start: async (objects, opts) => (api = await startFakeApi(objects, opts)) };
}
