/**
 * The relay client's connections to the gate: one HTTP/1.1 exchange at a time per loopback
 * connection, kept open between calls. Node's http client costs about 0.15 ms of CPU per exchange
 * on top of the socket writes (request and agent objects, header maps, the answer's stream); the
 * relay sends one fixed kind of request and reads one small answer, so it writes the request
 * itself and reads the answer with a strict parser (relay-answer-parser.ts).
 *
 * A connection carries one exchange at a time and goes back to the idle list only after an answer
 * that was complete, framed, keep-alive and followed by nothing; a byte or an end arriving on an
 * idle connection, a timeout, a cancel or any error destroys it. So an answer is never read on a
 * connection other than its request's, nor taken for another exchange's.
 */
import { connect, type Socket } from "node:net";
import { AnswerMalformed, AnswerParser, AnswerTooLarge, type ParsedAnswer } from "./relay-answer-parser.js";

/** How long an idle connection stays open on this side (the gate keeps its side longer). */
export const IDLE_CONNECTION_MS = 5_000;
/** At most this many idle connections are kept; more are closed when they come back. */
const MAX_IDLE = 4;

export interface ExchangeLimits {
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly maxAnswerBytes: number;
}

/** Why an exchange failed, for the relay client to put in its own words. */
export type ExchangeFailure =
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" }
  | { readonly kind: "too_large" }
  | { readonly kind: "malformed"; readonly cause: Error }
  | { readonly kind: "connection"; readonly cause: unknown };

export class ExchangeFailed extends Error {
  override readonly name = "ExchangeFailed";
  constructor(readonly failure: ExchangeFailure) {
    super(failure.kind);
  }
}

export class RelayConnections {
  readonly #host: string;
  readonly #port: number;
  readonly #idle: Socket[] = [];

  constructor(host: string, port: number) {
    this.#host = host;
    this.#port = port;
  }

  /** Sends `request` (a whole HTTP/1.1 request) and reads its answer; rejects with ExchangeFailed. */
  exchange(request: string, limits: ExchangeLimits): Promise<ParsedAnswer> {
    if (limits.signal?.aborted) return Promise.reject(new ExchangeFailed({ kind: "cancelled" }));
    const socket = this.#checkOut();
    return new Promise<ParsedAnswer>((resolve, reject) => {
      const parser = new AnswerParser(limits.maxAnswerBytes);
      let settled = false;
      const finish = (outcome: ParsedAnswer | ExchangeFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        limits.signal?.removeEventListener("abort", onCancel);
        socket.off("data", onData);
        socket.off("end", onEnd);
        socket.off("error", onError);
        socket.off("close", onClose);
        if ("status" in outcome) {
          if (outcome.reusable) this.#checkIn(socket);
          else discard(socket);
          resolve(outcome);
        } else {
          discard(socket);
          reject(new ExchangeFailed(outcome));
        }
      };
      const read = (step: () => ParsedAnswer | undefined) => {
        try {
          const answer = step();
          if (answer !== undefined) finish(answer);
        } catch (error) {
          if (error instanceof AnswerTooLarge) finish({ kind: "too_large" });
          else if (error instanceof AnswerMalformed) finish({ kind: "malformed", cause: error });
          else throw error;
        }
      };
      const onData = (chunk: Buffer) => read(() => parser.push(chunk));
      const onEnd = () =>
        read(() => {
          const answer = parser.end();
          if (answer === undefined) onClose();
          return answer;
        });
      const onError = (error: unknown) => finish({ kind: "connection", cause: error });
      // Ended or closed before the answer did: as Node's "socket hang up", nothing says whether the gate acted.
      const onClose = () =>
        finish({ kind: "connection", cause: new Error("the connection closed before the answer ended") });
      const onCancel = () => finish({ kind: "cancelled" });
      // The exchange's deadline: a timer, cleared when the exchange ends; alone it keeps no process alive.
      const timer = setTimeout(() => finish({ kind: "timeout" }), limits.timeoutMs);
      timer.unref();
      limits.signal?.addEventListener("abort", onCancel, { once: true });
      socket.on("data", onData);
      socket.on("end", onEnd);
      socket.on("error", onError);
      socket.on("close", onClose);
      socket.write(request);
    });
  }

  /** An idle connection still open, or a new one (its connect runs while the request is queued). */
  #checkOut(): Socket {
    for (let socket = this.#idle.pop(); socket !== undefined; socket = this.#idle.pop()) {
      socket.removeAllListeners("data").removeAllListeners("end").removeAllListeners("error");
      socket.removeAllListeners("timeout").removeAllListeners("close");
      if (socket.destroyed || !socket.writable || socket.readableEnded) {
        discard(socket);
        continue;
      }
      socket.setTimeout(0);
      // In use: a call waiting for its answer keeps the process alive, as any open request does.
      socket.ref();
      return socket;
    }
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    return socket;
  }

  #checkIn(socket: Socket): void {
    if (this.#idle.length >= MAX_IDLE) {
      discard(socket);
      return;
    }
    const drop = () => {
      discard(socket);
      const at = this.#idle.indexOf(socket);
      if (at >= 0) this.#idle.splice(at, 1);
    };
    // Nothing may arrive on an idle connection: a byte, an end or an error closes it.
    socket.on("data", drop);
    socket.on("end", drop);
    socket.on("error", drop);
    socket.on("close", drop);
    socket.on("timeout", drop);
    socket.setTimeout(IDLE_CONNECTION_MS);
    socket.unref();
    this.#idle.push(socket);
  }
}

/** Closes a connection no exchange will use; an error it still reports (a write cut short) is moot. */
function discard(socket: Socket): void {
  socket.on("error", () => undefined);
  socket.destroy();
}
