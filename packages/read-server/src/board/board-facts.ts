/**
 * What only the board reads, carried on `t3_control_plane`'s result as
 * `_meta["t3-connector/board"]` (MCP Apps: a result's `_meta` is for the view, not for the model's
 * context; the structured result and its schema stay as they were). Each fact comes from where it
 * is true for the session the board is shown in, never from a guess (ADR 0064):
 *
 * - `approvalOrigin`: set only when this session's own server lists `t3_pedir_aprovacao` (a
 *   `serve --http` session granted `t3:write`, ADR 0049), so the board's call of it goes to a tool
 *   the session has. It is the origin of the gate's approval page as the write config names it:
 *   the board opens an `approvalUrl` only on that origin.
 * - `t3Origins`: per environment, the origin of T3's own web app when it is known: the
 *   environment is reached by `url` at an origin with no path (a T3 server serves its web app at
 *   its own origin), and the server declared orchestration protocol 2 in its descriptor (the
 *   upstream line whose web app opens a thread at `/<environmentId>/<threadId>`). A tunnel (ssh),
 *   a base path, or a transitional server whose routes are not known: no origin, and the board
 *   says where to answer instead of linking.
 */
import type { Transport, WriteConfig } from "@t3-connector/core/config";
import type { ProtocolEvidence } from "@t3-connector/core/environments";
import type { ToolCall, ToolGroup } from "@t3-connector/mcp-tools";
import type { ReadContext } from "../read-context.js";

export const BOARD_FACTS_META_KEY = "t3-connector/board";

/** The tool whose result carries the facts: the one that links the board. */
const LINKING_TOOL = "t3_control_plane";
/** The write tool the board calls to ask for a lease (the bridge's name, ADR 0049). */
export const APPROVAL_TOOL = "t3_pedir_aprovacao";

export interface BoardFacts {
  readonly approvalOrigin: string | null;
  readonly t3Origins: Readonly<Record<string, string>>;
}

export interface BoardFactsOptions {
  /** The gate's approval origin, given by `serve --http` for a session whose server serves writes. */
  readonly approvalOrigin?: string;
  /** The groups served beside the read tools on this session's server. */
  readonly alongside?: readonly ToolGroup[];
}

/**
 * The origin of the gate's approval links, by the gate's own rule for `approvalUrl`: the public
 * origin when approval from afar is configured (ADR 0050), else its localhost page.
 */
export function approvalOriginOf(config: Pick<WriteConfig, "port" | "remoteApproval">): string {
  return config.remoteApproval?.origin ?? `http://localhost:${config.port}`;
}

/** `reads` with the board's facts added to each successful `t3_control_plane` result. */
export function withBoardFacts(
  reads: ToolGroup,
  context: ReadContext,
  options: BoardFactsOptions,
): ToolGroup {
  return {
    names: reads.names,
    list: () => reads.list(),
    async call(call: ToolCall) {
      const result = await reads.call(call);
      if (call.name !== LINKING_TOOL || result.isError === true) return result;
      const facts: BoardFacts = {
        approvalOrigin: servesApproval(options) ? (options.approvalOrigin ?? null) : null,
        t3Origins: await t3OriginsOf(context, result.structuredContent),
      };
      return { ...result, _meta: { ...result._meta, [BOARD_FACTS_META_KEY]: facts } };
    },
  };
}

/** Whether the session's `tools/list` has the approval tool: exactly what its host can call. */
function servesApproval(options: BoardFactsOptions): boolean {
  if (options.approvalOrigin === undefined) return false;
  return (options.alongside ?? []).some((group) => group.list().some((tool) => tool.name === APPROVAL_TOOL));
}

/** The web origin of each environment that answered this read, where it is known (see above). */
async function t3OriginsOf(context: ReadContext, structured: unknown): Promise<Record<string, string>> {
  const origins: Record<string, string> = {};
  for (const environmentId of answered(structured)) {
    const handle = context.registry.find(environmentId);
    if (handle === undefined || webOriginOf(handle.transport, "descriptor") === undefined) continue;
    // It answered this very read, so its verified connection is normally still open and this
    // resolves at once; one dropped since then is verified again, as the next read would.
    const connection = await handle.connect().catch(() => undefined);
    const origin = connection === undefined ? undefined : webOriginOf(handle.transport, connection.protocol);
    if (origin !== undefined) origins[environmentId] = origin;
  }
  return origins;
}

/**
 * T3's web origin for an environment reached by `transport` whose server proved protocol 2 by
 * `protocol`, or undefined where it is not known: a tunnel, a base path, a transitional server.
 */
export function webOriginOf(transport: Transport, protocol: ProtocolEvidence): string | undefined {
  if (transport.kind !== "url" || protocol !== "descriptor") return undefined;
  return bareOrigin(transport.url);
}

/** The environments the control plane read (the failed ones are left out). */
function answered(structured: unknown): string[] {
  const result = structured as
    | {
        queriedEnvironments?: Array<{ environmentId?: unknown }>;
        environmentFailures?: Array<{ environmentId?: unknown }>;
      }
    | undefined;
  const failed = new Set((result?.environmentFailures ?? []).map((failure) => failure.environmentId));
  return (result?.queriedEnvironments ?? [])
    .map((queried) => queried.environmentId)
    .filter((id): id is string => typeof id === "string" && !failed.has(id));
}

/** The URL's origin when the URL is nothing more (T3's routes start at its root). */
function bareOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.pathname === "/" && `${parsed.origin}` === url.replace(/\/$/, "")
      ? parsed.origin
      : undefined;
  } catch {
    return undefined;
  }
}
