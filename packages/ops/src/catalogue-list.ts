/** `actions`: every action (`act`) and every read (`query`), with its kind and description. */
import { ACTIONS } from "@t3-connector/core/actions";
import { QUERY_NAMES, queryTool } from "./queries.js";

export interface CatalogueEntry {
  name: string;
  kind: "action" | "read";
  title: string;
  description: string;
  /** The T3 command sent (null: a launch RPC, or a read). */
  command: string | null;
  /** The MCP tool with the same schema. */
  tool: string;
}

export function catalogue(): CatalogueEntry[] {
  const actions: CatalogueEntry[] = ACTIONS.map((entry) => ({
    name: entry.action,
    kind: "action",
    title: entry.title,
    description: entry.description,
    command: entry.commandType,
    tool: entry.toolName,
  }));
  const reads: CatalogueEntry[] = QUERY_NAMES.map((name) => {
    const tool = queryTool(name);
    return {
      name,
      kind: "read",
      title: tool.title,
      description: tool.description,
      command: null,
      tool: tool.name,
    };
  });
  return [...actions, ...reads];
}
