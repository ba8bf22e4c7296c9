import { type Clock, systemClock } from "../clock.js";
import type { EnvironmentConfig } from "../config/schema-common.js";
import { readTokenFile } from "../config/token-file.js";
import { ConnectorError } from "../errors.js";
import { nodeHttpFetch, type T3Fetch } from "../t3/node-http-fetch.js";
import type { ConnectedEnvironment, RpcOptions } from "./connection.js";
import { type ConnectOptions, EnvironmentHandle } from "./environment-handle.js";
import { type SpawnFunction, SshTunnel } from "./ssh-tunnel.js";

export const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

export interface EnvironmentRegistryOptions {
  /** From the read or the write config, in file order. */
  environments: readonly EnvironmentConfig[];
  /** The exact scope set every token must hold (READ_SCOPES or OPERATE_SCOPES). */
  requiredScopes: readonly string[];
  fetch?: T3Fetch;
  clock?: Clock;
  /** Deadline of opening and verifying one connection. Default 20 s. */
  connectTimeoutMs?: number;
  /** Per-request HTTP deadline; the client's default (15 s) when omitted. */
  httpTimeoutMs?: number;
  /** Reads a token file; default `readTokenFile` with its permission checks. */
  readToken?: (path: string) => Promise<string>;
  ssh?: { sshPath?: string; spawn?: SpawnFunction; readyTimeoutMs?: number; probeIntervalMs?: number };
  rpc?: RpcOptions;
}

/**
 * Every configured environment, each with one lazily verified connection. Environments are
 * resolved by alias or environmentId and never fall back to one another.
 */
export class EnvironmentRegistry {
  readonly #handles: readonly EnvironmentHandle[];

  constructor(options: EnvironmentRegistryOptions) {
    if (options.requiredScopes.length === 0) throw new Error("requiredScopes must not be empty");
    const clock = options.clock ?? systemClock;
    const ssh = options.ssh ?? {};
    this.#handles = Object.freeze(
      options.environments.map(
        (config) =>
          new EnvironmentHandle({
            config,
            requiredScopes: [...options.requiredScopes],
            fetch: options.fetch ?? nodeHttpFetch,
            clock,
            connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
            httpTimeoutMs: options.httpTimeoutMs,
            readToken: options.readToken ?? ((path) => readTokenFile(path)),
            createTunnel: (host, remotePort) => new SshTunnel({ host, remotePort, clock, ...ssh }),
            rpcOptions: options.rpc ?? {},
          }),
      ),
    );
  }

  /** In config order. */
  get environments(): readonly EnvironmentHandle[] {
    return this.#handles;
  }

  /** The order every sweep uses, so that results and cursors are stable. */
  inEnvironmentIdOrder(): EnvironmentHandle[] {
    return [...this.#handles].sort((a, b) => compareIds(a.environmentId, b.environmentId));
  }

  /** Finds by alias first, then by environmentId. */
  find(reference: string): EnvironmentHandle | undefined {
    return (
      this.#handles.find((handle) => handle.alias === reference) ??
      this.#handles.find((handle) => handle.environmentId === reference)
    );
  }

  /** Like `find`, but a missing or unknown reference is a typed error listing the aliases. */
  resolve(reference: string | undefined): EnvironmentHandle {
    const aliases = this.#handles.map((handle) => handle.alias);
    if (reference === undefined || reference.trim() === "") {
      throw new ConnectorError(
        "environment_required",
        `an environment is required: one of ${aliases.join(", ")} (alias or environmentId)`,
        { details: { aliases } },
      );
    }
    const handle = this.find(reference);
    if (handle === undefined) {
      throw new ConnectorError(
        "environment_unknown",
        `unknown environment "${reference}"; configured: ${aliases.join(", ")}`,
        { details: { aliases } },
      );
    }
    return handle;
  }

  /** Resolves and connects; an unknown or missing reference rejects like any other failure. */
  async connect(reference: string | undefined, options: ConnectOptions = {}): Promise<ConnectedEnvironment> {
    return this.resolve(reference).connect(options);
  }

  async close(): Promise<void> {
    await Promise.all(this.#handles.map((handle) => handle.close()));
  }
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
