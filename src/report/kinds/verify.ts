import type { VerifyReport } from "../../checks/index.js";
import { renderVerifyText } from "../../checks/render-text.js";
import { defineReport } from "../registry.js";

/** `verify`: one node's inventory and findings. */
export const VERIFY_REPORT = defineReport<VerifyReport>({
  name: "verify",
  text: (report, { width }) => renderVerifyText(report, width),
  structured: (report) => report,
  html: () => import("../html/pages/verify.js"),
});
