import type { ConnectorError } from "../errors.js";

/**
 * Settles with `promise`, or rejects with `makeError()` as soon as `signal` aborts. The work behind
 * `promise` is not stopped: this only ends one caller's wait (a shared connection keeps opening).
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  makeError: () => ConnectorError,
): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(makeError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(makeError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
