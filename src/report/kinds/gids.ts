import { type GidRow, renderShowGids } from "../../inventory/gid-table.js";
import { defineReport } from "../registry.js";

/** `gids`: the GID table, in show_gids's layout. */
export const GIDS_REPORT = defineReport<readonly GidRow[]>({
  name: "gids",
  text: renderShowGids,
  structured: (rows) => rows,
});
