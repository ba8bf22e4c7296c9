/**
 * The typed module API: every operation of the CLI, for scripts. One instance holds one verified
 * connection per environment (opened on first use); `close()` ends them.
 */

import type { Clock } from "@t3-connector/core";
import type { ActOptions, ActResult } from "./act.js";
import type { BatchOptions, OpsBatchResult } from "./batch.js";
import type { CatalogueEntry } from "./catalogue-list.js";
import { loadOpsConfig, type OpsConfig } from "./config.js";
import type { ConfigureRequest, ConfigureResult } from "./configure.js";
import type { CreateRequest, CreateResult } from "./create.js";
import type { DiffOptions } from "./diff-read.js";
import { OpsEnvironments } from "./environments.js";
import { errorFields } from "./error-fields.js";
import type { AnswerRequest, AnswerResult, InboxListing } from "./inbox.js";
import { type ListOptions, listThreads, type ThreadListing } from "./listing.js";
import type { OrganizeChange, OrganizeResult } from "./organize.js";
import type { ThreadListFilters } from "./reads.js";
import { type ResolvedThread, resolveThread } from "./references.js";
import { runQuery } from "./run-query.js";
import type { SendRequest, SendResult } from "./send.js";
import type { SettleResult } from "./settle.js";
import type { InterruptResult } from "./snooze-interrupt.js";
import type { WaitResult } from "./wait.js";

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

/**
 * Each operation's module is loaded when it first runs: `ls` and `--help` load neither the read
 * tools nor the write path (bench/ops-startup.mjs).
 */
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

  async thread(
    reference: string,
    environment?: string,
    options: { maxCharacters?: number } = {},
  ): Promise<Record<string, unknown>> {
    const { readThread } = await import("./thread-read.js");
    return readThread(this.environments, environment, reference, options);
  }

  /** What a thread's agent changed (t3_diff, every page), for `diff <ref>`. */
  async diff(
    reference: string,
    environment?: string,
    options: DiffOptions = {},
  ): Promise<Record<string, unknown>> {
    const { readDiff } = await import("./diff-read.js");
    return readDiff(this.environments, environment, reference, options);
  }

  /** Where a thread works (t3_worktree), for `worktree <ref>`. */
  async worktree(reference: string, environment?: string): Promise<Record<string, unknown>> {
    const { readWorktree } = await import("./diff-read.js");
    return readWorktree(this.environments, environment, reference);
  }

  /** One environment's threads through the read tool t3_threads (filters as it takes them). */
  async threads(environment: string, filters: ThreadListFilters = {}): Promise<unknown> {
    const { listEnvironmentThreads } = await import("./reads.js");
    return listEnvironmentThreads(this.environments, environment, filters);
  }

  async projects(environment: string, filters: { search?: string } = {}): Promise<unknown> {
    const { listProjects } = await import("./reads.js");
    return listProjects(this.environments, environment, filters);
  }

  async providers(environment: string, filters: { instanceId?: string } = {}): Promise<unknown> {
    const { listProviders } = await import("./reads.js");
    return listProviders(this.environments, environment, filters);
  }

  async timeline(
    reference: string,
    environment?: string,
    options: { limit?: number; maxCharacters?: number } = {},
  ): Promise<unknown> {
    const { readTimeline } = await import("./reads.js");
    return readTimeline(this.environments, environment, reference, options);
  }

  async create(environment: string, request: CreateRequest): Promise<CreateResult> {
    const { createThread } = await import("./create.js");
    return createThread(this.environments, environment, request);
  }

  /** What waits on the person in every environment (or the one named), as the gate's `/inbox`. */
  async inbox(environment?: string): Promise<InboxListing> {
    const { listInbox } = await import("./inbox.js");
    return listInbox(this.environments, environment);
  }

  /** Answers one inbox item with the operator's token (never a secret: those are T3's own). */
  async answer(request: AnswerRequest): Promise<AnswerResult> {
    const { answerInboxItem } = await import("./inbox.js");
    return answerInboxItem(this.environments, request);
  }

  async send(environment: string | undefined, request: SendRequest): Promise<SendResult> {
    const { sendMessage } = await import("./send.js");
    return sendMessage(this.environments, environment, request);
  }

  async settle(
    environment: string | undefined,
    reference: string,
    options: { namespace?: string } = {},
  ): Promise<SettleResult> {
    const { settleThread } = await import("./settle.js");
    return settleThread(this.environments, environment, reference, options);
  }

  async snooze(
    environment: string | undefined,
    reference: string,
    until: string,
    options: { namespace?: string } = {},
  ) {
    const { snoozeThread } = await import("./snooze-interrupt.js");
    return snoozeThread(this.environments, environment, reference, until, options);
  }

  async interrupt(
    environment: string | undefined,
    reference: string,
    options: { operationId: string; runId?: string; reason?: string; namespace?: string },
  ): Promise<InterruptResult> {
    const { interruptThread } = await import("./snooze-interrupt.js");
    return interruptThread(this.environments, environment, reference, options);
  }

  async configure(
    environment: string | undefined,
    reference: string,
    request: ConfigureRequest,
  ): Promise<ConfigureResult> {
    const { configureThread } = await import("./configure.js");
    return configureThread(this.environments, environment, reference, request);
  }

  async organize(
    environment: string | undefined,
    reference: string,
    change: OrganizeChange,
    options: { operationId: string; namespace?: string },
  ): Promise<OrganizeResult> {
    const { organizeThread } = await import("./organize.js");
    return organizeThread(this.environments, environment, reference, change, options);
  }

  /** One filing verb for up to 20 threads, each item the catalogue's write (ADR 0074). */
  async batch(
    environment: string,
    verb: string,
    threads: readonly string[],
    options: BatchOptions,
  ): Promise<OpsBatchResult> {
    const { runBatch } = await import("./batch.js");
    return runBatch(this.environments, environment, verb, threads, options);
  }

  async act(environment: string, action: string, input: unknown, options: ActOptions): Promise<ActResult> {
    const { act } = await import("./act.js");
    return act(this.environments, environment, action, input, options);
  }

  query(environment: string, name: string, input: unknown = {}): Promise<unknown> {
    return runQuery(this.environments, environment, name, input);
  }

  /** Every action and read; with an environment, each says whether that server can run it. */
  async actions(environment?: string): Promise<CatalogueEntry[]> {
    // The catalogue names each read's tool: loaded with the read tools, when asked for.
    const { catalogue } = await import("./catalogue-list.js");
    if (environment === undefined) return catalogue();
    const connection = await this.environments.connect(environment);
    return catalogue(await (await this.environments.commandSupport()).of(connection));
  }

  async wait(
    reference: string,
    options: { environment?: string; timeoutMs?: number } = {},
  ): Promise<WaitResult> {
    const { waitForThread } = await import("./wait.js");
    return waitForThread(this.environments, options.environment, reference, options);
  }

  close(): Promise<void> {
    return this.environments.close();
  }
}
