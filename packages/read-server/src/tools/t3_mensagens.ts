import { t3Mensagens } from "@t3-connector/mcp-tools/read-answers";
import { servedSharedReadTool } from "../served-read-tool.js";

/** Its answer is built in mcp-tools' read-answers, the same as the write bridge's leased t3_mensagens. */
export const t3MensagensTool = servedSharedReadTool(
  t3Mensagens,
  "Returns the last messages of one thread (oldest first), each cut from its start. " +
    "Pass environment when you know it; without it the id is located across every environment, as in t3_thread. " +
    "For the thread's state and pending requests call t3_thread.",
);
