/**
 * Identifier formats. Run, attempt, node, provider-thread, scope and signal-item ids copy the
 * shapes the real server produced in the captures (clients must not parse them, but tests and
 * humans compare them). Random-looking ids come from a per-environment counter so that seeds and
 * test runs are reproducible.
 */
import { createHash } from "node:crypto";

const enc = (value: string): string => encodeURIComponent(value);

export const runIdFor = (threadId: string, ordinal: number): string =>
  `run:thread:${threadId}:ordinal:${ordinal}`;
export const attemptIdFor = (runId: string, attempt: number): string =>
  `run-attempt:run:${enc(runId)}:attempt:${attempt}`;
export const rootNodeIdFor = (runId: string): string => `node:run:${enc(runId)}:root`;
export const providerThreadIdFor = (driver: string, firstRunId: string): string =>
  `provider-thread:provider:${driver}:native-thread:${enc(`pending:${firstRunId}`)}`;
export const sharedSessionIdFor = (instanceId: string): string =>
  `provider-session:provider-instance:${instanceId}:shared`;
export const rootScopeIdFor = (threadId: string): string => `checkpoint-scope:thread:${threadId}:name:root`;
export const messageItemIdFor = (messageId: string): string => `turn-item:message:${messageId}`;
export const signalItemIdFor = (runId: string, signal: string): string =>
  `turn-item:run:${enc(runId)}:signal:${signal}`;
export const providerTurnIdFor = (attemptId: string): string => `provider-turn:${enc(attemptId)}:turn:1`;
export const requestNodeIdFor = (requestId: string): string => `node:runtime-request:${requestId}`;
export const requestItemIdFor = (requestId: string): string => `turn-item:runtime-request:${requestId}`;
export const checkpointIdFor = (threadId: string, runOrdinal: number): string =>
  `checkpoint:thread:${threadId}:run:${runOrdinal}`;
export const checkpointItemIdFor = (checkpointId: string): string => `turn-item:checkpoint:${checkpointId}`;
export const planIdFor = (runId: string): string => `plan:run:${enc(runId)}:proposed`;
export const planItemIdFor = (planId: string): string => `turn-item:plan:${enc(planId)}`;
export const errorItemIdFor = (runId: string, attempt: number): string =>
  `turn-item:run:${enc(runId)}:error:${attempt}`;

/** UUID-shaped ids from a counter, salted by the environment so two environments never collide. */
export class IdSource {
  #counter = 0;
  readonly #salt: string;
  readonly #prefix: string;

  constructor(salt: string) {
    // Hashed once: ids are made in hot loops (bulk seeding makes hundreds of thousands).
    this.#salt = createHash("sha256").update(salt).digest("hex");
    const s = this.#salt;
    // Version 4 / variant 10 nibbles so the value passes as a UUID wherever one is checked.
    this.#prefix = `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-`;
  }

  uuid(): string {
    this.#counter += 1;
    return this.#prefix + this.#counter.toString(16).padStart(12, "0");
  }

  /** 32 hex characters, the shape of T3's traceId. */
  traceId(): string {
    return createHash("sha256")
      .update(`${this.#salt}:trace:${this.#counter++}`)
      .digest("hex")
      .slice(0, 32);
  }
}
