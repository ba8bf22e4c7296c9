/**
 * The write tools by URL (ADR 0049): `serve --http` with the OAuth profile serves the bridge's
 * write tools, from the bridge's own table and registration, to a session the person allowed to
 * write (`t3:write`). The writes go to the gate over the same relay contract as a bridge process:
 * this server holds no operate token, no journal and no lease of its own. Each session gets its
 * own relay client, which draws one holder secret and presents it on every call (ADR 0022, 0040):
 * the gate knows the session's requests, leases and receipts by it, and it never reaches another
 * session or a stdio bridge. Nothing of a session outlives it at the gate: its end, and the drop of
 * its writes to make room, withdraw its requests and end its leases (ADR 0067).
 */
import { randomUUID } from "node:crypto";
import { ConnectorError } from "@t3-connector/core";
import { type CliIo, describeError } from "@t3-connector/core/cli-support";
import { loadWriteConfig, type WriteConfig, writeConfigPath } from "@t3-connector/core/config";
import { type ToolGroup, toolErrorResult } from "@t3-connector/mcp-tools";
import { type VerifiedAccess, WRITE_SCOPE } from "@t3-connector/oauth";
import {
  bridgeToolGroup,
  createRelayClient,
  type RelayClient,
  SessionLeases,
  sessionBridgeContext,
  WRITE_SIDE_TOOLS,
} from "@t3-connector/write-bridge";

/**
 * Write sessions kept at most. Past it the least recently used one's writes are ended exactly as
 * its session's end would end them, and that session is told so (ADR 0067).
 */
export const MAX_WRITE_SESSIONS = 256;
/**
 * Sessions remembered as dropped, so that their next write call is refused by name instead of
 * silently drawing a new holder secret. One dropped longer ago than this many drops asks anew.
 */
const MAX_DROPPED_SESSIONS = 4096;

/** Where `serve` found the gate, or why it serves reads only (said once at start). */
export type GateLookup =
  | { readonly kind: "found"; readonly config: WriteConfig }
  | { readonly kind: "absent"; readonly path: string };

/**
 * The write config as the bridge finds it: `T3_CONNECTOR_WRITE_CONFIG`, or its default path. A
 * missing file means reads only; a file that does not parse refuses the start (its error names
 * the field), since the person clearly meant to write.
 */
export async function lookUpGate(io: CliIo): Promise<GateLookup> {
  const context = {
    ...(io.env === undefined ? {} : { env: io.env }),
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
  };
  try {
    return { kind: "found", config: await loadWriteConfig(context) };
  } catch (error) {
    if (error instanceof ConnectorError && error.code === "config_not_found") {
      return { kind: "absent", path: writeConfigPath(context) };
    }
    throw new Error(`the write config cannot be used: ${describeError(error)}`);
  }
}

export interface UrlWritesOptions {
  readonly config: WriteConfig;
  /** The operator's log (stderr) for failures: the bridge tools' unexpected ones, a lease that would not end. */
  readonly log: (line: string) => void;
  /** Events worth a line (info): a session's leases ended with it, its writes dropped to make room. */
  readonly info: (line: string) => void;
  /** Each session's own relay client to the gate (tests hold a call at it); default the bridge's. */
  readonly relayOf?: (config: WriteConfig) => RelayClient;
}

interface SessionWrites {
  readonly leases: SessionLeases;
  readonly group: ToolGroup;
}

/** The tool groups each session's server adds to the read tools. */
export class UrlWrites {
  readonly #options: UrlWritesOptions;
  /** Least recently used first. */
  readonly #sessions = new Map<string, SessionWrites>();
  readonly #dropped = new Set<string>();
  readonly #refusal: ToolGroup;
  readonly #droppedRefusal: ToolGroup;

  constructor(options: UrlWritesOptions) {
    this.#options = options;
    const names = WRITE_SIDE_TOOLS.map((tool) => tool.name);
    this.#refusal = refusingGroup(names, "write_not_granted", NOT_GRANTED);
    this.#droppedRefusal = refusingGroup(names, "write_session_ended", DROPPED);
  }

  get config(): WriteConfig {
    return this.#options.config;
  }

  /**
   * What this session's server serves beside the read tools: the write tools with `t3:write`;
   * without it, nothing listed, and a write call answered with `write_not_granted`; for a session
   * whose writes were dropped to make room, nothing listed, and `write_session_ended`.
   */
  groupFor(access: VerifiedAccess | undefined): ToolGroup {
    if (access === undefined || !access.scope.includes(WRITE_SCOPE)) return this.#refusal;
    if (this.#dropped.has(access.sessionId)) return this.#droppedRefusal;
    return this.#writesOf(access).group;
  }

  /**
   * The session ended: its pending requests are withdrawn and each lease it holds is ended at the
   * gate, then its relay client is dropped, its holder secret with it. Answers how many leases
   * were still open.
   */
  async endSession(sessionId: string): Promise<number> {
    this.#dropped.delete(sessionId);
    const held = this.#sessions.get(sessionId);
    if (held === undefined) return 0;
    this.#sessions.delete(sessionId);
    const ended = await held.leases.endAll(this.#options.log, ENDED);
    if (ended > 0)
      this.#options.info(`session ${sessionId} ended: ${ended} lease(s) it held ended at the gate`);
    return ended;
  }

  #writesOf(access: VerifiedAccess): SessionWrites {
    const held = this.#sessions.get(access.sessionId);
    if (held !== undefined) {
      // Used again: it moves to the back of the line for dropping.
      this.#sessions.delete(access.sessionId);
      this.#sessions.set(access.sessionId, held);
      return held;
    }
    const { config } = this.#options;
    const relay =
      this.#options.relayOf?.(config) ?? createRelayClient({ port: config.port, stateDir: config.stateDir });
    const leases = new SessionLeases(relay);
    const context = sessionBridgeContext({
      relay: leases,
      // A random asking id per session: the gate learns nothing that names the session from it.
      bridgeId: `url-${randomUUID()}`,
      // The page names the session: "ChatGPT, signed in 5:02 PM".
      client: { name: access.clientName, signedInAt: new Date(access.sessionStartedAt).toISOString() },
    });
    const writes = { leases, group: bridgeToolGroup(WRITE_SIDE_TOOLS, context, this.#options.log) };
    if (this.#sessions.size >= MAX_WRITE_SESSIONS) this.#dropLeastRecent();
    this.#sessions.set(access.sessionId, writes);
    return writes;
  }

  /**
   * Makes room: the least recently used session's writes end as its session's end would end them
   * (requests withdrawn, leases ended at the gate), and the session is remembered as dropped.
   */
  #dropLeastRecent(): void {
    const [sessionId, held] = this.#sessions.entries().next().value ?? [];
    if (sessionId === undefined || held === undefined) return;
    this.#sessions.delete(sessionId);
    this.#dropped.add(sessionId);
    if (this.#dropped.size > MAX_DROPPED_SESSIONS)
      this.#dropped.delete(this.#dropped.values().next().value as string);
    void held.leases
      .endAll(this.#options.log, DROPPED)
      .then((ended) =>
        this.#options.info(
          `session ${sessionId}: its writes were dropped to make room (at most ${MAX_WRITE_SESSIONS} write sessions); ` +
            `its requests were withdrawn and ${ended} lease(s) it held ended at the gate`,
        ),
      );
  }
}

const NOT_GRANTED =
  "this session was not granted t3:write, so it cannot ask for leases or write. To write, the user " +
  "reconnects this server in the client (ChatGPT: the connector's Reconnect; Claude: Disconnect, then " +
  "Connect) and leaves the write box ticked on the consent page; every write still needs their passkey";

const DROPPED =
  `serve keeps the writes of at most ${MAX_WRITE_SESSIONS} sessions and dropped this one's, the least ` +
  "recently used: its approval requests were withdrawn and its leases ended at the gate. Reads go on; " +
  "to write again, the user signs this client in again";

const ENDED = "this session ended: its approval requests were withdrawn and its leases ended at the gate";

/**
 * The write tools' names for a session that may not write (not granted, or its writes dropped):
 * none is listed, and a call is a tool error the model can read and act on, instead of a
 * protocol error naming an unknown tool.
 */
function refusingGroup(
  names: readonly string[],
  code: "write_not_granted" | "write_session_ended",
  message: string,
): ToolGroup {
  return {
    names,
    list: () => [],
    call: () => Promise.resolve(toolErrorResult({ code, message })),
  };
}
