import type { ConnectorError } from "../errors.js";
import { stopOnAbort } from "../fanout/stop-on-abort.js";

/**
 * Settles with `promise`, or rejects with `makeError()` as soon as `signal` aborts. The work behind
 * `promise` is not stopped: this only ends one caller's wait (a shared connection keeps opening).
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  makeError: () => ConnectorError,
): Promise<T> {
  return stopOnAbort(promise, signal).catch((error: unknown) => {
    throw signal.aborted && error === signal.reason ? makeError() : error;
  });
}
