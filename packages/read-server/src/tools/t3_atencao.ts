import { t3Atencao } from "@t3-connector/mcp-tools/read-answers";
import { servedSharedReadTool } from "../served-read-tool.js";

/** Its answer is built in mcp-tools' read-answers, the same as the write bridge's leased t3_atencao. */
export const t3AtencaoTool = servedSharedReadTool(
  t3Atencao,
  "Lists the visible threads that need the user: needs_intervention (a pending approval, question, plan or " +
    "usage limit) or a failed latest run nobody settled, newest first, across every environment unless " +
    "environment is given. Read t3_thread in the item's environment for the request content and the exact " +
    "write action that answers it (e.g. t3_escrever_runtime_request_answer through the write bridge). " +
    "With complete:false an empty list does not mean nothing needs attention.",
);
