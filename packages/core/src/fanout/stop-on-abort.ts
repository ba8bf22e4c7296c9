/**
 * Settles with `promise`, or rejects with `signal.reason` as soon as `signal` aborts, so a hung
 * socket never holds a call past its deadline. `promise` always gets a handler, even when the
 * signal had already aborted: the work it stands for may still fail later, after nobody waits
 * for it, and an unhandled rejection ends a Node process (issue 20).
 *
 * Better still is not to start work once the signal has aborted: callers check it first.
 */
export function stopOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
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
