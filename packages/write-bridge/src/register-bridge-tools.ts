import { registerToolGroups, type ToolGroup, type ToolServer, toolGroup } from "@t3-connector/mcp-tools";
import type { BridgeContext, BridgeToolDefinition } from "./bridge-tool.js";
import { INTERNAL_ERROR_TEXT, toolError } from "./tool-result.js";

/** Keys of the old Portuguese contract: refused like any unknown key, the new name is only hinted. */
const LEGACY_KEYS: Readonly<Record<string, string>> = {
  ambiente: "environment",
  lease: "leaseId",
  operacao: "operationId",
  entrada: "input",
};

/**
 * Registers the write tools on `server` through the one registration module of both MCP servers
 * (`@t3-connector/mcp-tools`, ADR 0016). A bad argument (unknown or legacy key, wrong type, out of
 * range, `arguments: null`) is answered as a tool error the model can read (`isError: true`, the
 * code and the fix, the same in `_meta`; ADR 0004, ADR 0021) and never reaches the gate. What is the
 * bridge's own: its legacy keys, its error texts with the next step per code, the title repeated
 * in the annotations.
 */
export function registerBridgeTools(
  server: ToolServer,
  definitions: readonly BridgeToolDefinition[],
  context: BridgeContext,
  log: (line: string) => void,
): void {
  registerToolGroups(server, [bridgeToolGroup(definitions, context, log)]);
}

/**
 * The same tools with the same checks, error texts and annotations as a group another server can
 * serve beside its own: `serve --http` adds them for an OAuth session allowed to write (ADR 0049).
 */
export function bridgeToolGroup(
  definitions: readonly BridgeToolDefinition[],
  context: BridgeContext,
  log: (line: string) => void,
): ToolGroup {
  return toolGroup(definitions, {
    kind: "bridge",
    context,
    legacyKeys: LEGACY_KEYS,
    toolError: (error) => toolError(error),
    internalErrorText: INTERNAL_ERROR_TEXT,
    log,
    titleInAnnotations: true,
  });
}
