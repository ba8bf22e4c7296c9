/** What every command handler may use. */
import type { RunEngine } from "../engine.js";
import { DomainError, threadNotFound } from "../errors.js";
import type { SimStore, ThreadRecord } from "../store.js";
import type { DecodedCommand } from "./schemas.js";

export interface CommandContext {
  readonly store: SimStore;
  readonly engine: RunEngine;
  /** Ends scheduled work of a deleted thread (title regeneration timers, run programs). */
  readonly clockTimer: (delayMs: number, callback: () => void) => void;
  /**
   * Plays current upstream (protocol 2): the newer commands' rules and typed errors apply. False
   * for transitional builds and the 0.0.31 profile, which keep what 0.0.31 does.
   */
  readonly newer: boolean;
}

/** Handlers validate first, then commit; they return the sequence of their (last) commit. */
export type CommandHandler = (ctx: CommandContext, command: DecodedCommand) => number;

export function requireThread(ctx: CommandContext, threadId: unknown): ThreadRecord {
  const record = ctx.store.liveThread(String(threadId));
  if (!record) throw threadNotFound(String(threadId));
  return record;
}

export function reject(message: string): never {
  throw new DomainError(message);
}

export const str = (command: DecodedCommand, key: string): string => String(command[key]);
export const opt = <T>(command: DecodedCommand, key: string): T | undefined => command[key] as T | undefined;
