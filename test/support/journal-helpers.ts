import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@t3-connector/core";
import type { ReserveRequest } from "../../packages/write-engine/src/journal/index.js";

/** A clock the test moves by hand: records get exact, predictable timestamps. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  monotonic(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

export interface TempDir {
  path: string;
  /** A state directory inside the temp dir (not created yet). */
  stateDir: string;
  remove(): Promise<void>;
}

export async function makeTempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), "t3-journal-"));
  return { path, stateDir: join(path, "state"), remove: () => rm(path, { recursive: true, force: true }) };
}

export function request(operationId: string, overrides: Partial<ReserveRequest> = {}): ReserveRequest {
  return {
    environmentId: "env-a",
    destination: "t3://env-a",
    caller: "channel:test|tunnel:1",
    operationId,
    action: "thread.send",
    input: { threadId: "thread-1", text: "hello" },
    ...overrides,
  };
}

export const DAY_MS = 24 * 60 * 60 * 1000;
