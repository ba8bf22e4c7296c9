import { type Clock, systemClock } from "@t3-connector/core";
import type { ReadConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, READ_SCOPES } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import { ShellMirrors } from "@t3-connector/core/mirror";
import { type CursorCodec, createCursorCodec } from "@t3-connector/core/pagination";

/** Deadlines and concurrency of reads; the contract's values unless a test narrows them. */
export interface ReadLimits {
  /** Environments read at the same time by a sweep (contract: 4). */
  concurrency: number;
  /** One environment's deadline: connection, read and the one retry (contract: 4 s). */
  perEnvironmentTimeoutMs: number;
  /** The whole call's deadline (contract: 10 s). */
  totalTimeoutMs: number;
}

export const CONTRACT_READ_LIMITS: ReadLimits = Object.freeze({
  concurrency: 4,
  perEnvironmentTimeoutMs: 4_000,
  totalTimeoutMs: 10_000,
});

/**
 * What a read tool may use. The tools receive this and nothing else, so the MCP layer never
 * reaches into config files, and a test builds a context over simulated environments.
 */
export interface ReadContext {
  readonly clock: Clock;
  /** Operator log (stderr in the CLI). Never protocol output, never secrets. */
  log(line: string): void;
  /** The loaded read config (environments in file order, with their ACLs: `scope/project-acl.ts`). */
  readonly config: ReadConfig;
  /** One verified read-only connection per environment. */
  readonly registry: EnvironmentRegistry;
  /** Signs and checks this process's pagination cursors. */
  readonly cursors: CursorCodec;
  readonly limits: ReadLimits;
  /**
   * Where the deadlines of `limits` come from; absent: real timers. A test injects a source it
   * expires on demand, so a stalled environment times out without waiting real time.
   */
  readonly deadlines?: FanOutDeadlines;
  /** Live shell mirrors, one per verified connection; absent: every whole-shell read is an HTTP GET. */
  readonly mirrors?: ShellMirrors;
}

export interface ProcessReadContextOptions {
  config: ReadConfig;
  clock?: Clock;
  log?: (line: string) => void;
  /** Defaults to a registry over `config` that requires exactly `orchestration:read`. */
  registry?: EnvironmentRegistry;
  limits?: Partial<ReadLimits>;
  /** Defaults to real timers. */
  deadlines?: FanOutDeadlines;
  /** Defaults to mirrors logging to `log`; `null` turns them off. */
  mirrors?: ShellMirrors | null;
}

/** The context of a real `t3-connector serve` process. */
export function createProcessReadContext(options: ProcessReadContextOptions): ReadContext {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const registry =
    options.registry ??
    new EnvironmentRegistry({
      environments: options.config.environments,
      requiredScopes: READ_SCOPES,
      clock,
    });
  return {
    clock,
    log,
    config: options.config,
    registry,
    cursors: createCursorCodec(),
    limits: { ...CONTRACT_READ_LIMITS, ...options.limits },
    deadlines: options.deadlines ?? realDeadlines,
    ...(options.mirrors === null ? {} : { mirrors: options.mirrors ?? new ShellMirrors({ log }) }),
  };
}

/** The deadline source of `context`: the injected one, else real timers. */
export function deadlinesOf(context: ReadContext): FanOutDeadlines {
  return context.deadlines ?? realDeadlines;
}
