import { type Clock, systemClock } from "../clock.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import { currentGuardedCall } from "./call-context.js";

/** At most this many guard lines per window; the rest are counted, so a flood cannot fill a disk. */
export const GUARD_LOG_LINES_PER_WINDOW = 20;
export const GUARD_LOG_WINDOW_MS = 60_000;

export interface ProcessGuardOptions {
  /** Prefix of every line, e.g. `t3-connector`. */
  readonly processName: string;
  /** Writes one line to stderr (never stdout: on stdio servers stdout is the protocol). */
  readonly log: (line: string) => void;
  readonly clock?: Clock;
}

export interface ProcessGuard {
  /** Unexpected rejections seen since install. */
  readonly caught: number;
  dispose(): void;
}

/**
 * The process-wide guard of a long-running server (ADR 0020). A promise that rejects with nobody
 * waiting on it would end the process under Node's default policy, taking every client's session
 * with it. Instead the guard logs the failure with the call it came from, fails that call if it
 * is still waiting (with `internal`), and the process keeps serving.
 *
 * Uncaught exceptions are not kept: a synchronous throw out of an event handler may leave a
 * socket or a state machine half-updated, so the process still ends on them (logged first).
 */
export function installProcessGuard(options: ProcessGuardOptions): ProcessGuard {
  const clock = options.clock ?? systemClock;
  let caught = 0;
  let windowStart = clock.monotonic();
  let linesInWindow = 0;
  let suppressed = 0;

  const write = (line: string) => {
    const now = clock.monotonic();
    if (now - windowStart >= GUARD_LOG_WINDOW_MS) {
      if (suppressed > 0) {
        options.log(`${options.processName}: ${suppressed} more unexpected failures were not logged`);
      }
      windowStart = now;
      linesInWindow = 0;
      suppressed = 0;
    }
    if (linesInWindow >= GUARD_LOG_LINES_PER_WINDOW) {
      suppressed++;
      return;
    }
    linesInWindow++;
    options.log(line);
  };

  const onRejection = (reason: unknown) => {
    caught++;
    const call = currentGuardedCall();
    const where =
      call === undefined
        ? "outside any call"
        : call.settled
          ? `in ${call.label}, after it answered`
          : `in ${call.label}, which now fails`;
    write(
      `${options.processName}: unexpected failure nobody waited for, ${where}: ${describe(reason)}; still serving`,
    );
    call?.fail(
      new ConnectorError("internal", "the call failed unexpectedly; the server logged it and keeps serving", {
        cause: reason,
      }),
    );
  };
  const onException = (error: unknown, origin: string) => {
    const call = currentGuardedCall();
    const where = call === undefined ? "" : ` in ${call.label}`;
    options.log(`${options.processName}: fatal ${origin}${where}: ${describe(error)}; exiting`);
  };

  process.on("unhandledRejection", onRejection);
  process.on("uncaughtExceptionMonitor", onException);
  return {
    get caught() {
      return caught;
    },
    dispose: () => {
      process.off("unhandledRejection", onRejection);
      process.off("uncaughtExceptionMonitor", onException);
    },
  };
}

/** `code: message` for ours, the stack's head for anything else; each cause once, up to three. */
function describe(reason: unknown, depth = 0): string {
  let text: string;
  if (isConnectorError(reason)) text = reason.toString();
  else if (reason instanceof Error) {
    const frames = (reason.stack ?? "")
      .split("\n")
      .slice(1, 4)
      .map((line) => line.trim());
    text = `${reason.name}: ${reason.message}${frames.length > 0 ? ` (${frames.join(" ← ")})` : ""}`;
  } else if (typeof reason === "symbol") text = reason.toString();
  else text = `non-error value ${printable(reason)}`;
  const cause = reason instanceof Error ? reason.cause : undefined;
  if (cause === undefined || depth >= 2) return text;
  return `${text}; cause: ${describe(cause, depth + 1)}`;
}

function printable(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
