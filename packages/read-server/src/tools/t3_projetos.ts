import { t3Projetos } from "@t3-connector/mcp-tools/read-answers";
import { servedSharedReadTool } from "../served-read-tool.js";

/** Its answer is built in mcp-tools' read-answers, the same as the write bridge's leased t3_projetos. */
export const t3ProjetosTool = servedSharedReadTool(
  t3Projetos,
  "Lists the authorized projects of every environment (or only environment), with their directory and how " +
    "many visible threads are running or need intervention. A projectId belongs to one environment: pass both " +
    "to t3_threads. total comes before the list; when truncated, call again with cursor=nextCursor.",
);
