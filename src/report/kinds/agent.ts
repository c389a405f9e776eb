import { type AgentRunResult, agentStructured, renderAgentText } from "../../agent/render.js";
import { defineReport } from "../registry.js";

/** `agent --once`: the condition, events, report and taint of one node's run. */
export const AGENT_REPORT = defineReport<AgentRunResult>({
  name: "agent",
  text: (r, { width }) => renderAgentText(r, width),
  structured: (r) => agentStructured(r),
});
