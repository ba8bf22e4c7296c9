import type { Clock } from "../clock.js";
import type { EnvironmentConfig, Transport } from "../config/schema-common.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import { T3HttpClient } from "../t3/http-client.js";
import type { T3Fetch } from "../t3/node-http-fetch.js";
import { abortable } from "./abortable.js";
import {
  type ConnectedEnvironment,
  type DropReason,
  EnvironmentConnection,
  type RpcOptions,
} from "./connection.js";
import type { SshTunnel } from "./ssh-tunnel.js";
import { verifyEnvironment } from "./verify.js";

export interface EnvironmentHandleInit {
  config: EnvironmentConfig;
  requiredScopes: readonly string[];
  fetch: T3Fetch;
  clock: Clock;
  /** Deadline of opening and verifying one connection (shared by every waiting caller). */
  connectTimeoutMs: number;
  httpTimeoutMs: number | undefined;
  readToken: (path: string) => Promise<string>;
  createTunnel: (host: string, remotePort: number) => SshTunnel;
  rpcOptions: RpcOptions;
}

export interface ConnectOptions {
  /** Ends this caller's wait; the shared connection keeps opening for the others. */
  signal?: AbortSignal;
}

/**
 * One configured environment. It holds at most one verified connection, opened on first use,
 * shared by concurrent callers and dropped after a transport failure or a refused token.
 */
export class EnvironmentHandle {
  readonly alias: string;
  readonly environmentId: string;
  readonly transport: Transport;
  /** The folders project writes may use here (`projectRoots`; none when not configured, ADR 0074). */
  readonly projectRoots: readonly string[];
  readonly #init: EnvironmentHandleInit;
  #connection: EnvironmentConnection | undefined;
  #opening: Promise<EnvironmentConnection> | undefined;
  #tunnel: SshTunnel | undefined;
  #closed = false;
  /** Aborts a connection still opening when the handle closes, so close() never waits on a hung server. */
  readonly #closing = new AbortController();

  constructor(init: EnvironmentHandleInit) {
    this.#init = init;
    this.alias = init.config.alias;
    this.environmentId = init.config.environmentId;
    this.transport = init.config.transport;
    this.projectRoots = init.config.projectRoots ?? [];
  }

  /** `url` or `ssh <host>`, as environment listings show it. */
  get transportLabel(): string {
    return this.transport.kind === "url" ? "url" : `ssh ${this.transport.host}`;
  }

  /** The live ssh child, when this environment goes through a tunnel that is up. */
  get tunnelPid(): number | undefined {
    return this.#tunnel?.pid;
  }

  connect(options: ConnectOptions = {}): Promise<ConnectedEnvironment> {
    if (this.#closed) {
      return Promise.reject(new ConnectorError("unavailable", `environment "${this.alias}" is closed`));
    }
    if (this.#connection !== undefined) return Promise.resolve(this.#connection);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    const opening = this.#opening;
    if (options.signal === undefined) return opening;
    return abortable(
      opening,
      options.signal,
      () => new ConnectorError("cancelled", `connecting to environment "${this.alias}" was cancelled`),
    );
  }

  /**
   * Tells the handle that a call on its connection failed. A transport failure drops the
   * connection and the tunnel; a refused token (401) drops the connection. Other errors are
   * answers from a working server and change nothing.
   */
  reportFailure(error: unknown): void {
    const connection = this.#connection;
    // Failures while opening were handled by the opening itself (tunnel discarded).
    if (connection === undefined) return;
    if (isConnectorError(error, "unavailable")) {
      this.#drop(connection, "unavailable");
    } else if (isConnectorError(error, "unauthorized") && error.status === 401) {
      this.#drop(connection, "unauthorized");
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const opening = this.#opening;
    if (opening !== undefined) {
      await opening.then(
        (connection) => connection.dispose(),
        () => undefined,
      );
    }
    this.#connection?.dispose();
    this.#connection = undefined;
    await this.#tunnel?.close();
  }

  #drop(connection: EnvironmentConnection, reason: DropReason): void {
    connection.dispose();
    // A late failure of an older connection must not take down the one that replaced it.
    if (this.#connection !== connection) return;
    this.#connection = undefined;
    if (reason === "unavailable") void this.#tunnel?.discard();
  }

  #ensureTunnel(host: string, remotePort: number): SshTunnel {
    if (this.#tunnel === undefined) {
      const tunnel = this.#init.createTunnel(host, remotePort);
      // The forwarded port died with the child: the connection through it is useless now.
      tunnel.onExit(() => {
        if (this.#connection !== undefined) this.#drop(this.#connection, "closed");
      });
      this.#tunnel = tunnel;
    }
    return this.#tunnel;
  }

  async #open(): Promise<EnvironmentConnection> {
    const deadline = AbortSignal.timeout(this.#init.connectTimeoutMs);
    const signal = AbortSignal.any([deadline, this.#closing.signal]);
    const stopped = () =>
      this.#closed
        ? new ConnectorError("unavailable", `environment "${this.alias}" is closed`)
        : new ConnectorError(
            "timeout",
            `environment "${this.alias}" did not connect within ${this.#init.connectTimeoutMs} ms`,
          );
    let connection: EnvironmentConnection;
    try {
      connection = await abortable(this.#openAndVerify(signal), signal, stopped);
    } catch (error) {
      if (isConnectorError(error, "unavailable")) await this.#tunnel?.discard();
      // The deadline aborts the requests; report the deadline, not the abort it caused.
      if (signal.aborted && isConnectorError(error, "cancelled")) throw stopped();
      throw error;
    }
    if (this.#closed) {
      connection.dispose();
      throw new ConnectorError("unavailable", `environment "${this.alias}" is closed`);
    }
    this.#connection = connection;
    return connection;
  }

  async #openAndVerify(signal: AbortSignal): Promise<EnvironmentConnection> {
    const init = this.#init;
    const token = await init.readToken(init.config.tokenFile);
    const baseUrl =
      this.transport.kind === "url"
        ? this.transport.url
        : `http://127.0.0.1:${await this.#ensureTunnel(this.transport.host, this.transport.remotePort).open()}`;
    let connection: EnvironmentConnection | undefined;
    const observedFetch: T3Fetch = async (input, requestInit) => {
      try {
        const response = await init.fetch(input, requestInit);
        if (response.status === 401 && connection !== undefined) this.#drop(connection, "unauthorized");
        return response;
      } catch (error) {
        const aborted = requestInit.signal.aborted;
        if (!aborted && connection !== undefined) this.#drop(connection, "unavailable");
        throw error;
      }
    };
    const http = new T3HttpClient({
      baseUrl,
      token,
      environment: this.alias,
      fetch: observedFetch,
      ...(init.httpTimeoutMs !== undefined ? { timeoutMs: init.httpTimeoutMs } : {}),
    });
    const target = {
      alias: this.alias,
      environmentId: this.environmentId,
      requiredScopes: init.requiredScopes,
    };
    const identity = await verifyEnvironment(http, target, signal);
    const created: EnvironmentConnection = new EnvironmentConnection({
      alias: this.alias,
      environmentId: this.environmentId,
      baseUrl,
      token,
      http,
      identity,
      clock: init.clock,
      rpcOptions: init.rpcOptions,
      verify: (verifySignal) => verifyEnvironment(http, target, verifySignal),
      onDrop: (reason) => this.#drop(created, reason),
    });
    connection = created;
    return created;
  }
}
