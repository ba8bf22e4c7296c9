import { t3Threads } from "@t3-connector/mcp-tools/read-answers";
import { servedSharedReadTool } from "../served-read-tool.js";

/** Its answer is built in mcp-tools' read-answers, the same as the write bridge's leased t3_threads. */
export const t3ThreadsTool = servedSharedReadTool(
  t3Threads,
  "Lists visible threads (authorized projects, not archived unless includeArchived) newest first, across every environment unless " +
    "environment is given; each carries its environment and canonical state. total comes before the list; when " +
    "truncated, call again with cursor=nextCursor and the same inputs. complete:false means some environment " +
    "did not answer (see environmentFailures). Threads that never ran are left out unless includeNoRun is true; " +
    "hiddenNoRun counts them. For a needs_intervention thread read t3_thread in its environment.",
);
