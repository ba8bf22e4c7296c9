/**
 * The write tools by URL (ADR 0049): `serve --http` with the OAuth profile serves the bridge's
 * write tools, from the bridge's own table and registration, to a session the person allowed to
 * write (`t3:write`). The writes go to the gate over the same relay contract as a bridge process:
 * this server holds no operate token, no journal and no lease of its own. Each session gets its
 * own relay client, which draws one holder secret and presents it on every call (ADR 0022, 0040):
 * the gate knows the session's requests, leases and receipts by it, and it never reaches another
 * session or a stdio bridge.
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
  sessionBridgeContext,
  WRITE_SIDE_TOOLS,
} from "@t3-connector/write-bridge";
import { SessionLeases } from "./session-leases.js";

/** Write sessions kept at most; the oldest is dropped first (its holder secret with it: it asks again). */
const MAX_WRITE_SESSIONS = 256;

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
  /** Events worth a line (info): a session's leases ended with it. */
  readonly info: (line: string) => void;
}

interface SessionWrites {
  readonly leases: SessionLeases;
  readonly group: ToolGroup;
}

/** The tool groups each session's server adds to the read tools. */
export class UrlWrites {
  readonly #options: UrlWritesOptions;
  readonly #sessions = new Map<string, SessionWrites>();
  readonly #refusal: ToolGroup;

  constructor(options: UrlWritesOptions) {
    this.#options = options;
    this.#refusal = refusingGroup(WRITE_SIDE_TOOLS.map((tool) => tool.name));
  }

  get config(): WriteConfig {
    return this.#options.config;
  }

  /**
   * What this session's server serves beside the read tools: the write tools with `t3:write`;
   * without it, nothing listed, and a write call answered with `write_not_granted`.
   */
  groupFor(access: VerifiedAccess | undefined): ToolGroup {
    if (access === undefined || !access.scope.includes(WRITE_SCOPE)) return this.#refusal;
    return this.#writesOf(access).group;
  }

  /**
   * The session ended: each lease it holds is ended at the gate, then its relay client is dropped,
   * its holder secret with it. Answers how many leases were still open.
   */
  async endSession(sessionId: string): Promise<number> {
    const held = this.#sessions.get(sessionId);
    if (held === undefined) return 0;
    this.#sessions.delete(sessionId);
    const ended = await held.leases.endAll(this.#options.log);
    if (ended > 0)
      this.#options.info(`session ${sessionId} ended: ${ended} lease(s) it held ended at the gate`);
    return ended;
  }

  #writesOf(access: VerifiedAccess): SessionWrites {
    const held = this.#sessions.get(access.sessionId);
    if (held !== undefined) return held;
    const { config } = this.#options;
    const leases = new SessionLeases(createRelayClient({ port: config.port, stateDir: config.stateDir }));
    const context = sessionBridgeContext({
      relay: leases,
      // A random asking id per session: the gate learns nothing that names the session from it.
      bridgeId: `url-${randomUUID()}`,
      // The page names the session: "ChatGPT, signed in 5:02 PM".
      client: { name: access.clientName, signedInAt: new Date(access.sessionStartedAt).toISOString() },
    });
    const writes = { leases, group: bridgeToolGroup(WRITE_SIDE_TOOLS, context, this.#options.log) };
    if (this.#sessions.size >= MAX_WRITE_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      // Its holder secret goes with it: it asks again; its lease stays on the page until it ends.
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    this.#sessions.set(access.sessionId, writes);
    return writes;
  }
}

/**
 * The write tools' names for a session without `t3:write`: none is listed, and a call is a tool
 * error the model can read and act on, instead of a protocol error naming an unknown tool.
 */
function refusingGroup(names: readonly string[]): ToolGroup {
  const message =
    "this session was not granted t3:write, so it cannot ask for leases or write; " +
    "the user can sign this client in again and tick the write box on the consent page";
  return {
    names,
    list: () => [],
    call: () => Promise.resolve(toolErrorResult({ code: "write_not_granted", message })),
  };
}
