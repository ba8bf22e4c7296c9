import { t3Thread } from "@t3-connector/mcp-tools/read-answers";
import { servedSharedReadTool } from "../served-read-tool.js";

/** Its answer is built in mcp-tools' read-answers, the same as the write bridge's leased t3_thread. */
export const t3ThreadTool = servedSharedReadTool(
  t3Thread,
  "Reads one thread by id: canonical state, active and latest run, pending requests with their content, and the end of the latest response. " +
    "Pass environment when you know it; without it the id is located across every environment and the call refuses when it is ambiguous or an environment did not answer. " +
    "A pending request is answered with the write bridge tool named in its nextAction (t3_escrever_runtime_request_answer or t3_escrever_runtime_request_approve), never with a message.",
);
