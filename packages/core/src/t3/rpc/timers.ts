/**
 * Timers are injected so that tests drive keepalive ticks and deadlines by hand instead of
 * sleeping. The system implementation unrefs its timers: a pending keepalive or call deadline
 * must never keep a CLI process alive on its own.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): TimerHandle;
}

export const systemTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};
