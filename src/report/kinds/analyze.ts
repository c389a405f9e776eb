import type { AnalyzedInput } from "../../analyze/index.js";
import { renderAnalyzeText, structuredEntries } from "../../analyze/render.js";
import { defineReport } from "../registry.js";

/** `analyze`: one entry per input (captures, nccl-tests runs, NCCL logs). */
export const ANALYZE_REPORT = defineReport<readonly AnalyzedInput[]>({
  name: "analyze",
  text: (entries, { width }) => renderAnalyzeText(entries, width),
  structured: structuredEntries,
  html: () => import("../html/pages/analyze.js"),
});
