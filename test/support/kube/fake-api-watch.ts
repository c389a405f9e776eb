/** The fake API server's watches (test/support/kube/fake-api.ts): every change kept, sent to the open watches. */
import type { ServerResponse } from "node:http";
import { matchesFields, matchesLabels, type Obj } from "./fake-api-wire.js";

export type WatchQuery = { namespace: string | null; labels: string | null; fields: string | null; since: number };

/**
 * Every change, for watches that start from an older resourceVersion, and the open watches: `changed` records a
 * change and sends it to the watches of its plural; `watch` answers a watch request with the changes after
 * `since`, then each new one, as newline-separated watch events.
 */
export function watchHub(): {
  changed: (plural: string, type: string, o: Obj) => void;
  watch: (plural: string, apiVersion: string, kind: string, res: ServerResponse, q: WatchQuery) => void;
} {
  const history: { plural: string; type: string; rv: number; object: Obj }[] = [];
  const watchers = new Set<{ plural: string; send: (type: string, o: Obj) => void }>();

  function changed(plural: string, type: string, o: Obj): void {
    const object = structuredClone(o);
    history.push({ plural, type, rv: Number(o.metadata.resourceVersion), object });
    for (const w of watchers) if (w.plural === plural) w.send(type, object);
  }

  function watch(plural: string, apiVersion: string, kind: string, res: ServerResponse, q: WatchQuery): void {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    const send = (type: string, o: Obj) => {
      if (q.namespace && o.metadata?.namespace !== q.namespace) return;
      if (!matchesLabels(o, q.labels) || !matchesFields(o, q.fields)) return;
      res.write(`${JSON.stringify({ type, object: { apiVersion, kind, ...o } })}\n`);
    };
    for (const h of history) if (h.plural === plural && h.rv > q.since) send(h.type, h.object);
    const w = { plural, send };
    watchers.add(w);
    res.on("close", () => watchers.delete(w));
  }

  return { changed, watch };
}
