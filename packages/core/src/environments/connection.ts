import type { Clock } from "../clock.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import type { T3HttpClient } from "../t3/http-client.js";
import { T3RpcClient } from "../t3/rpc/client.js";
import type { ProtocolEvidence, VerifiedIdentity } from "./verify.js";

/** What a caller gets for one verified environment. */
export interface ConnectedEnvironment {
  readonly alias: string;
  readonly environmentId: string;
  /** The server label, null when the server has none. */
  readonly name: string | null;
  readonly version: string | null;
  readonly protocol: ProtocolEvidence;
  readonly scopes: readonly string[];
  readonly tokenExpiresAt: string | undefined;
  readonly http: T3HttpClient;
  /** True once dropped or closed: nothing may be read through it any more (connect again). */
  readonly closed: boolean;
  /** The WebSocket RPC client, opened on first use and opened again after it closed. */
  rpc(): Promise<T3RpcClient>;
  /** Forgets this connection (closing its socket); the next connect verifies again. */
  close(): void;
  /**
   * Runs the identity checks of the first connect again (environmentId, protocol, exact scopes),
   * e.g. before trusting a socket reopened after a drop. A failed check drops this connection.
   */
  verifyAgain(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Told once when this connection is dropped or closed, so state derived from it (a shell
   * mirror) never outlives it. Returns the unsubscribe function; on a closed connection the
   * listener runs at once.
   */
  onClose(listener: () => void): () => void;
}

type RpcConnectOptions = Parameters<typeof T3RpcClient.connect>[0];
/** Pass-through options of `T3RpcClient.connect` (timeouts, WebSocket factory). */
export type RpcOptions = Omit<RpcConnectOptions, "baseUrl" | "token" | "http" | "clock">;

export type DropReason = "unavailable" | "unauthorized" | "closed" | "unverified";

export interface EnvironmentConnectionInit {
  alias: string;
  environmentId: string;
  baseUrl: string;
  token: string;
  http: T3HttpClient;
  identity: VerifiedIdentity;
  clock: Clock;
  rpcOptions: RpcOptions;
  /** The owner's identity checks, run again by `verifyAgain`. */
  verify: (signal: AbortSignal) => Promise<unknown>;
  /** Tells the owner that this connection must not be reused. */
  onDrop: (reason: DropReason) => void;
}

export class EnvironmentConnection implements ConnectedEnvironment {
  readonly alias: string;
  readonly environmentId: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly protocol: ProtocolEvidence;
  readonly scopes: readonly string[];
  readonly tokenExpiresAt: string | undefined;
  readonly http: T3HttpClient;
  readonly #init: EnvironmentConnectionInit;
  #rpc: T3RpcClient | undefined;
  #rpcOpening: Promise<T3RpcClient> | undefined;
  #closed = false;
  readonly #closeListeners = new Set<() => void>();

  constructor(init: EnvironmentConnectionInit) {
    this.#init = init;
    this.alias = init.alias;
    this.environmentId = init.environmentId;
    this.name = init.identity.name;
    this.version = init.identity.version;
    this.protocol = init.identity.protocol;
    this.scopes = Object.freeze([...init.identity.scopes]);
    this.tokenExpiresAt = init.identity.tokenExpiresAt;
    this.http = init.http;
  }

  get closed(): boolean {
    return this.#closed;
  }

  rpc(): Promise<T3RpcClient> {
    if (this.#closed) {
      return Promise.reject(
        new ConnectorError("unavailable", `the connection to environment "${this.alias}" was closed`),
      );
    }
    if (this.#rpc?.isOpen) return Promise.resolve(this.#rpc);
    this.#rpcOpening ??= this.#openRpc().finally(() => {
      this.#rpcOpening = undefined;
    });
    return this.#rpcOpening;
  }

  close(): void {
    if (this.#closed) return;
    this.dispose();
    this.#init.onDrop("closed");
  }

  /** Closes the socket without notifying the owner (the owner is the one dropping us). */
  dispose(): void {
    this.#closed = true;
    this.#rpc?.close();
    this.#rpc = undefined;
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    for (const listener of listeners) listener();
  }

  async verifyAgain(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#closed) {
      throw new ConnectorError("unavailable", `the connection to environment "${this.alias}" was closed`);
    }
    try {
      await this.#init.verify(options.signal ?? new AbortController().signal);
    } catch (error) {
      // Whatever answers at this address can no longer be vouched for; a caller's cancel proves nothing.
      if (!options.signal?.aborted) this.#init.onDrop("unverified");
      throw error;
    }
  }

  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => {};
    }
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  async #openRpc(): Promise<T3RpcClient> {
    const init = this.#init;
    let client: T3RpcClient;
    try {
      client = await T3RpcClient.connect({
        ...init.rpcOptions,
        baseUrl: init.baseUrl,
        token: init.token,
        http: init.http,
        clock: init.clock,
      });
    } catch (error) {
      if (isConnectorError(error, "unavailable")) init.onDrop("unavailable");
      else if (isConnectorError(error, "unauthorized")) init.onDrop("unauthorized");
      throw error;
    }
    if (this.#closed) {
      client.close();
      throw new ConnectorError("unavailable", `the connection to environment "${this.alias}" was closed`);
    }
    this.#rpc = client;
    client.onClose((error?: ConnectorError) => {
      if (this.#rpc === client) this.#rpc = undefined;
      // A socket that could not reach the server means the transport (or tunnel) is gone.
      if (isConnectorError(error, "unavailable")) init.onDrop("unavailable");
    });
    return client;
  }
}
