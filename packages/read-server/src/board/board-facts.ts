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
 * - `inboxOrigin` and `inboxLinks` (ADR 0073): set only when approval from afar is configured, on
 *   its public (issuer) origin: per waiting thread (`<environmentId> <threadId>`), the link to its
 *   item in the person's inbox; `inboxCount` counts the waiting items the read listed.
 */
import type { Transport, WriteConfig } from "@t3-connector/core/config";
import type { ProtocolEvidence } from "@t3-connector/core/environments";
import { inboxItemId } from "@t3-connector/core/state";
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
  /** The issuer origin the person's inbox answers at, when approval from afar is on. */
  readonly inboxOrigin: string | null;
  /** `<environmentId> <threadId>` → `<inboxOrigin>/inbox#<item>`, for each thread that waits. */
  readonly inboxLinks: Readonly<Record<string, string>>;
  /** How many listed threads wait on the person with a request (the inbox's agent items here). */
  readonly inboxCount: number;
}

export interface BoardFactsOptions {
  /** The gate's approval origin, given by `serve --http` for a session whose server serves writes. */
  readonly approvalOrigin?: string;
  /** The groups served beside the read tools on this session's server. */
  readonly alongside?: readonly ToolGroup[];
  /** The public origin of approval from afar, where the inbox answers (never its localhost page). */
  readonly inboxOrigin?: string;
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
      const waiting = waitingRequests(result.structuredContent);
      const inboxOrigin = options.inboxOrigin ?? null;
      const facts: BoardFacts = {
        approvalOrigin: servesApproval(options) ? (options.approvalOrigin ?? null) : null,
        t3Origins: await t3OriginsOf(context, result.structuredContent),
        inboxOrigin,
        inboxLinks:
          inboxOrigin === null
            ? {}
            : Object.fromEntries(
                waiting.map((row) => [
                  `${row.environmentId} ${row.threadId}`,
                  `${inboxOrigin}/inbox#${inboxItemId(row.environmentId, row.threadId, row.requestId)}`,
                ]),
              ),
        inboxCount: waiting.length,
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

/** The listed threads that wait on a person with a request, and that request's id. */
function waitingRequests(
  structured: unknown,
): { environmentId: string; threadId: string; requestId: string }[] {
  const list = (structured as { needsIntervention?: { threads?: unknown[] } } | undefined)?.needsIntervention
    ?.threads;
  const rows: { environmentId: string; threadId: string; requestId: string }[] = [];
  for (const item of Array.isArray(list) ? list : []) {
    const row = item as {
      environment?: { environmentId?: unknown };
      threadId?: unknown;
      pendingRequest?: { requestId?: unknown } | null;
    };
    const environmentId = row.environment?.environmentId;
    const requestId = row.pendingRequest?.requestId;
    if (
      typeof environmentId !== "string" ||
      typeof row.threadId !== "string" ||
      typeof requestId !== "string"
    )
      continue;
    rows.push({ environmentId, threadId: row.threadId, requestId });
  }
  return rows;
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
