/** `actions`: every action (`act`) and every read (`query`), with its kind and description. */

import { writeToolRow } from "@t3-connector/write-bridge/tool-table";
import { ACTIONS, type ActionGroup } from "@t3-connector/write-engine/actions";
import { type CommandSupport, supportsAction } from "@t3-connector/write-engine/capabilities";
import { queryTool } from "./queries.js";
import { QUERY_NAMES } from "./query-names.js";

export interface CatalogueEntry {
  name: string;
  kind: "action" | "read";
  title: string;
  description: string;
  /** Actions only: the risk group the approval page shows (organize, run, destructive). */
  group?: ActionGroup;
  /** The T3 command sent (null: a launch RPC, or a read). */
  command: string | null;
  /** The MCP tool with the same schema. */
  tool: string;
  /** Only when an environment was named: whether its T3 version can run this action. */
  supported?: boolean;
}

export function catalogue(support?: CommandSupport): CatalogueEntry[] {
  const actions: CatalogueEntry[] = ACTIONS.map((entry) => ({
    name: entry.action,
    kind: "action",
    title: entry.label,
    description: entry.description,
    group: entry.group,
    command: entry.commandType,
    tool: writeToolRow(entry.action).name,
    ...(support === undefined ? {} : { supported: supportsAction(support, entry.action) }),
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
      // Reads use routes every supported server has (or fall back where one is missing).
      ...(support === undefined ? {} : { supported: true }),
    };
  });
  return [...actions, ...reads];
}
