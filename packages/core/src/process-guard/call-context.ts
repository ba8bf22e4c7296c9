import { AsyncLocalStorage } from "node:async_hooks";

/** What the process guard knows about the call a stray failure came from. */
export interface GuardedCall {
  /** e.g. `tools/call t3_thread_read_batch`: said in the log line, never to a client. */
  readonly label: string;
  /** True once the call answered: a failure then can only be logged. */
  readonly settled: boolean;
  /** Ends the call with `error` if it has not answered yet. */
  fail(error: unknown): void;
}

const calls = new AsyncLocalStorage<GuardedCall>();

/** The call whose work is running now (Node runs `unhandledRejection` in the promise's context). */
export function currentGuardedCall(): GuardedCall | undefined {
  return calls.getStore();
}

/**
 * Runs `work` as one guarded call: every promise it creates, however detached, carries `label`,
 * so the process guard can name the call a stray rejection belongs to and fail that call alone
 * (when it is still waiting) instead of the process.
 */
export function runGuardedCall<T>(label: string, work: () => Promise<T>): Promise<T> {
  let settled = false;
  let failWith: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    failWith = reject;
  });
  // Nobody may be waiting on `failed` when it rejects (the call answered first).
  failed.catch(() => undefined);
  const call: GuardedCall = {
    label,
    get settled() {
      return settled;
    },
    fail: (error) => {
      if (!settled) failWith(error);
    },
  };
  return calls.run(call, async () => {
    try {
      return await Promise.race([work(), failed]);
    } finally {
      settled = true;
    }
  });
}
