/**
 * The typed module API: every operation of the CLI, for scripts. One instance holds one verified
 * connection per environment (opened on first use); `close()` ends them.
 */
import type { Clock } from "@t3-connector/core";
import { type ActOptions, type ActResult, act } from "./act.js";
import { type CatalogueEntry, catalogue } from "./catalogue-list.js";
import { loadOpsConfig, type OpsConfig } from "./config.js";
import { type ConfigureRequest, type ConfigureResult, configureThread } from "./configure.js";
import { type CreateRequest, type CreateResult, createThread } from "./create.js";
import { OpsEnvironments } from "./environments.js";
import { errorFields } from "./error-fields.js";
import { type ListOptions, listThreads, type ThreadListing } from "./listing.js";
import { type OrganizeChange, type OrganizeResult, organizeThread } from "./organize.js";
import { runQuery } from "./queries.js";
import {
  listEnvironmentThreads,
  listProjects,
  listProviders,
  readTimeline,
  type ThreadListFilters,
} from "./reads.js";
import { type ResolvedThread, resolveThread } from "./references.js";
import { type SendRequest, type SendResult, sendMessage } from "./send.js";
import { type SettleResult, settleThread } from "./settle.js";
import { type InterruptResult, interruptThread, snoozeThread } from "./snooze-interrupt.js";
import { readThread } from "./thread-read.js";
import { type WaitResult, waitForThread } from "./wait.js";

export interface OpsOptions {
  config: OpsConfig;
  clock?: Clock;
  fetch?: typeof fetch;
  connectTimeoutMs?: number;
}

export interface EnvironmentStatus {
  alias: string;
  aliases: string[];
  environmentId: string;
  transport: string;
  reachable: boolean;
  name?: string | null;
  version?: string | null;
  error?: { code: string; message: string };
}

export class Ops {
  readonly environments: OpsEnvironments;

  constructor(options: OpsOptions) {
    this.environments = new OpsEnvironments(options);
  }

  /** Loads the config the CLI would use (see config.ts). */
  static async fromConfig(
    options: Omit<OpsOptions, "config"> & { env?: Record<string, string | undefined> } = {},
  ) {
    const config = await loadOpsConfig(options.env === undefined ? {} : { env: options.env });
    return new Ops({ ...options, config });
  }

  /** Every configured environment, each probed (connect and verify). */
  async environmentStatus(): Promise<EnvironmentStatus[]> {
    return Promise.all(
      this.environments.all().map(async ({ config, handle }): Promise<EnvironmentStatus> => {
        const base = {
          alias: config.alias,
          aliases: config.aliases,
          environmentId: config.environmentId,
          transport: handle.transportLabel,
        };
        try {
          const connection = await handle.connect();
          return { ...base, reachable: true, name: connection.name, version: connection.version };
        } catch (error) {
          return { ...base, reachable: false, error: errorFields(error) };
        }
      }),
    );
  }

  list(options: ListOptions = {}): Promise<ThreadListing> {
    return listThreads(this.environments, options);
  }

  resolve(reference: string, environment?: string): Promise<ResolvedThread> {
    return resolveThread(this.environments, reference, environment);
  }

  thread(
    reference: string,
    environment?: string,
    options: { maxCharacters?: number } = {},
  ): Promise<Record<string, unknown>> {
    return readThread(this.environments, environment, reference, options);
  }

  /** One environment's threads through the read tool t3_threads (filters as it takes them). */
  threads(environment: string, filters: ThreadListFilters = {}): Promise<unknown> {
    return listEnvironmentThreads(this.environments, environment, filters);
  }

  projects(environment: string, filters: { search?: string } = {}): Promise<unknown> {
    return listProjects(this.environments, environment, filters);
  }

  providers(environment: string, filters: { instanceId?: string } = {}): Promise<unknown> {
    return listProviders(this.environments, environment, filters);
  }

  timeline(
    reference: string,
    environment?: string,
    options: { limit?: number; maxCharacters?: number } = {},
  ): Promise<unknown> {
    return readTimeline(this.environments, environment, reference, options);
  }

  create(environment: string, request: CreateRequest): Promise<CreateResult> {
    return createThread(this.environments, environment, request);
  }

  send(environment: string | undefined, request: SendRequest): Promise<SendResult> {
    return sendMessage(this.environments, environment, request);
  }

  settle(
    environment: string | undefined,
    reference: string,
    options: { namespace?: string } = {},
  ): Promise<SettleResult> {
    return settleThread(this.environments, environment, reference, options);
  }

  snooze(
    environment: string | undefined,
    reference: string,
    until: string,
    options: { namespace?: string } = {},
  ) {
    return snoozeThread(this.environments, environment, reference, until, options);
  }

  interrupt(
    environment: string | undefined,
    reference: string,
    options: { operationId: string; runId?: string; reason?: string; namespace?: string },
  ): Promise<InterruptResult> {
    return interruptThread(this.environments, environment, reference, options);
  }

  configure(
    environment: string | undefined,
    reference: string,
    request: ConfigureRequest,
  ): Promise<ConfigureResult> {
    return configureThread(this.environments, environment, reference, request);
  }

  organize(
    environment: string | undefined,
    reference: string,
    change: OrganizeChange,
    options: { operationId: string; namespace?: string },
  ): Promise<OrganizeResult> {
    return organizeThread(this.environments, environment, reference, change, options);
  }

  act(environment: string, action: string, input: unknown, options: ActOptions): Promise<ActResult> {
    return act(this.environments, environment, action, input, options);
  }

  query(environment: string, name: string, input: unknown = {}): Promise<unknown> {
    return runQuery(this.environments, environment, name, input);
  }

  /** Every action and read; with an environment, each says whether that server can run it. */
  async actions(environment?: string): Promise<CatalogueEntry[]> {
    if (environment === undefined) return catalogue();
    const connection = await this.environments.connect(environment);
    return catalogue(await this.environments.commandSupport.of(connection));
  }

  wait(reference: string, options: { environment?: string; timeoutMs?: number } = {}): Promise<WaitResult> {
    return waitForThread(this.environments, options.environment, reference, options);
  }

  close(): Promise<void> {
    return this.environments.close();
  }
}
