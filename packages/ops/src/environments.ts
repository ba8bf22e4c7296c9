/**
 * The operator's environments: one registry over the ops config, requiring the operate scope set
 * (the operator's own token, no lease). Names resolve by entry alias, extra alias, then environmentId.
 */
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import { noEnvironmentsError } from "@t3-connector/core/config";
import {
  type ConnectedEnvironment,
  type EnvironmentHandle,
  EnvironmentRegistry,
  OPERATE_SCOPES,
} from "@t3-connector/core/environments";
import type { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import type { OpsConfig, OpsEnvironmentConfig } from "./config.js";

export interface OpsEnvironmentsOptions {
  config: OpsConfig;
  clock?: Clock;
  fetch?: typeof fetch;
  connectTimeoutMs?: number;
}

export interface ResolvedEnvironment {
  readonly config: OpsEnvironmentConfig;
  readonly handle: EnvironmentHandle;
}

export class OpsEnvironments {
  readonly config: OpsConfig;
  readonly registry: EnvironmentRegistry;
  readonly clock: Clock;
  #commandSupport: CommandSupportCache | undefined;

  constructor(options: OpsEnvironmentsOptions) {
    this.config = options.config;
    this.clock = options.clock ?? systemClock;
    this.registry = new EnvironmentRegistry({
      environments: options.config.environments,
      requiredScopes: OPERATE_SCOPES,
      clock: this.clock,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
  }
  /**
   * Which actions each server can run, probed once per environment and version. Loaded with the
   * write path, on first use: a read (`ls`) never loads the action catalogue.
   */
  async commandSupport(): Promise<CommandSupportCache> {
    if (this.#commandSupport === undefined) {
      const { CommandSupportCache } = await import("@t3-connector/write-engine/capabilities");
      this.#commandSupport ??= new CommandSupportCache();
    }
    return this.#commandSupport;
  }

  /** In config order. */
  all(): ResolvedEnvironment[] {
    return this.config.environments.map((config) => this.#pair(config));
  }

  /** The names a reference may use for environments, for messages. */
  names(): string[] {
    return this.config.environments.flatMap((env) => [env.alias, ...env.aliases]);
  }

  /** Undefined when `name` names no environment. */
  find(name: string): ResolvedEnvironment | undefined {
    const config =
      this.config.environments.find((env) => env.alias === name) ??
      this.config.environments.find((env) => env.aliases.includes(name)) ??
      this.config.environments.find((env) => env.environmentId === name);
    return config === undefined ? undefined : this.#pair(config);
  }

  /**
   * The environment a one-environment command runs in when none is named: the only one configured.
   * With several, naming one stays required (a guess could act on the wrong machine); with none,
   * the error says how to add one.
   */
  implicit(named: string | undefined): string {
    if (named !== undefined && named.trim() !== "") return named;
    this.requireSome();
    const [only, ...others] = this.config.environments;
    if (only !== undefined && others.length === 0) return only.alias;
    throw new ConnectorError(
      "environment_required",
      `this command runs in one environment and ${this.config.environments.length} are configured: ` +
        `name one first (t3-connector-ops <env> ...) or with --env; configured: ${this.names().join(", ")}.`,
      { details: { aliases: this.names() } },
    );
  }

  /** Throws `no_environments` (naming the file and the command that adds one) when none is configured. */
  requireSome(): void {
    if (this.config.environments.length === 0) throw noEnvironmentsError("ops", this.config.path);
  }

  resolve(name: string): ResolvedEnvironment {
    this.requireSome();
    const found = this.find(name);
    if (found === undefined) {
      throw new ConnectorError(
        "environment_unknown",
        `unknown environment "${name}"; configured: ${this.names().join(", ")}`,
        { details: { aliases: this.names() } },
      );
    }
    return found;
  }

  connect(name: string): Promise<ConnectedEnvironment> {
    return this.resolve(name).handle.connect();
  }

  close(): Promise<void> {
    return this.registry.close();
  }

  #pair(config: OpsEnvironmentConfig): ResolvedEnvironment {
    const handle = this.registry.find(config.alias);
    if (handle === undefined) throw new Error(`registry lost environment ${config.alias}`);
    return { config, handle };
  }
}
