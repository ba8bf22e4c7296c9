import { runGuardedCall } from "@t3-connector/core/process-guard";
import { registerToolGroups, type ToolGroup, type ToolServer, toolGroup } from "@t3-connector/mcp-tools";
import { withBoardFacts } from "./board/board-facts.js";
import { LEGACY_INPUT_KEYS } from "./legacy-input-keys.js";
import type { ReadContext } from "./read-context.js";
import { READ_ONLY_ANNOTATIONS, type ReadToolDefinition } from "./read-tool.js";
import { isReadToolCatalog, type ReadToolCatalog, type ReadTools } from "./read-tool-catalog.js";
import { INTERNAL_ERROR_TEXT, toolError } from "./tool-result.js";

/**
 * Registers the read tools on `server` through the one registration module of both MCP servers
 * (`@t3-connector/mcp-tools`, ADR 0016): input validated into `isError` tool results (ADR 0004),
 * output checked against its schema, `structuredContent`. What is the read server's own: every
 * tool must declare the four read-only hints, the old Portuguese parameter names are hinted, and
 * errors read "internal: failed to query T3" when they are not a `ConnectorError`.
 *
 * Call it once per server, before `connect`; a second call throws.
 */
export function registerReadTools(
  server: ToolServer,
  definitions: ReadTools,
  context: ReadContext,
  options: RegisterReadToolsOptions = {},
): void {
  const reads = readToolGroup(definitions, context, options.beforeCall);
  // The board's facts ride on the control plane's result (ADR 0064); the tools are as before.
  const served = withBoardFacts(reads, context, {
    ...(options.alongside === undefined ? {} : { alongside: options.alongside }),
    ...(options.approvalOrigin === undefined ? {} : { approvalOrigin: options.approvalOrigin }),
    ...(options.inboxOrigin === undefined ? {} : { inboxOrigin: options.inboxOrigin }),
  });
  registerToolGroups(server, [served, ...(options.alongside ?? [])]);
}

export interface RegisterReadToolsOptions {
  /**
   * Awaited before every handler runs, after the input was validated (the CLI waits here for the
   * start-up check of the environments). A rejection becomes the call's tool error, with the
   * code of a `ConnectorError`, and the handler does not run.
   */
  beforeCall?: () => Promise<void>;
  /**
   * Tools served after the read tools on the same server, each group with its own checks and
   * errors: the write bridge's tools for an OAuth session allowed to write (ADR 0049).
   */
  alongside?: readonly ToolGroup[];
  /**
   * The origin of the gate's approval page, for a session whose server serves the write tools:
   * the board opens an approval link only there (ADR 0064).
   */
  approvalOrigin?: string;
  /** The public origin of approval from afar: the board opens inbox items only there (ADR 0073). */
  inboxOrigin?: string;
}

type BeforeCall = RegisterReadToolsOptions["beforeCall"];

/**
 * The read tools' group, built once per definitions, context and `beforeCall`: `serve --http`
 * builds a server for every request, and checking every tool's schemas (and converting them for
 * `tools/list`) is work the same tools need only once per process (ADR 0072).
 */
const READ_GROUPS = new WeakMap<ReadTools, WeakMap<ReadContext, Map<BeforeCall, ToolGroup>>>();

function readToolGroup(definitions: ReadTools, context: ReadContext, beforeCall: BeforeCall): ToolGroup {
  let byContext = READ_GROUPS.get(definitions);
  if (byContext === undefined) {
    byContext = new WeakMap();
    READ_GROUPS.set(definitions, byContext);
  }
  let byGate = byContext.get(context);
  if (byGate === undefined) {
    byGate = new Map();
    byContext.set(context, byGate);
  }
  const kept = byGate.get(beforeCall);
  if (kept !== undefined) return kept;
  const group = isReadToolCatalog(definitions)
    ? catalogGroup(definitions, context, beforeCall)
    : definedGroup(definitions, context, beforeCall);
  byGate.set(beforeCall, group);
  return group;
}

function definedGroup(
  definitions: readonly ReadToolDefinition[],
  context: ReadContext,
  beforeCall: BeforeCall,
): ToolGroup {
  return toolGroup(definitions.map(guardedDefinition), {
    kind: "read",
    context,
    legacyKeys: LEGACY_INPUT_KEYS,
    check: assertReadOnly,
    ...(beforeCall === undefined ? {} : { beforeCall }),
    toolError,
    internalErrorText: INTERNAL_ERROR_TEXT,
    log: (line) => context.log(line),
  });
}

/**
 * The catalog's tools as one group: listed from its tables, and each tool, at its first call,
 * loaded and checked as a group of its own (the same registration checks, the same answers), kept
 * for the calls after. A tool whose module fails to load fails that call (a protocol error, as
 * for any handler that throws outside the tool), and the next call loads it again.
 */
function catalogGroup(catalog: ReadToolCatalog, context: ReadContext, beforeCall: BeforeCall): ToolGroup {
  const loaded = new Map<string, Promise<ToolGroup>>();
  const groupOf = (name: string) => {
    let group = loaded.get(name);
    if (group === undefined) {
      group = catalog.load(name).then((definition) => definedGroup([definition], context, beforeCall));
      loaded.set(name, group);
      group.catch(() => loaded.delete(name));
    }
    return group;
  };
  return {
    names: catalog.listing.map((tool) => tool.name),
    list: () => [...catalog.listing],
    async call(call) {
      return (await groupOf(call.name)).call(call);
    },
  };
}

/**
 * Each call's work runs as one guarded call: a failure nobody waited for is then logged with the
 * tool's name and fails that call only, never the process (ADR 0020).
 */
function guardedDefinition(definition: ReadToolDefinition): ReadToolDefinition {
  const handler = definition.handler.bind(definition);
  return {
    ...definition,
    handler: (context, input, extra) =>
      runGuardedCall(`tools/call ${definition.name}`, () => handler(context, input, extra)),
  } as ReadToolDefinition;
}

/** The read server can never change anything, and says so in every tool's hints. */
function assertReadOnly(definition: ReadToolDefinition): void {
  const { name, annotations } = definition;
  for (const [hint, expected] of Object.entries(READ_ONLY_ANNOTATIONS)) {
    const actual = (annotations as unknown as Record<string, unknown> | undefined)?.[hint];
    if (actual !== expected) {
      throw new Error(`Read tool ${name} must declare ${hint}: ${expected} (got ${String(actual)})`);
    }
  }
}
