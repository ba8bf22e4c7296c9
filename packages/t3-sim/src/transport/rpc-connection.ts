import type { WebSocket } from "ws";
import type { RpcOutcome, StreamHandle } from "../model/contract.js";
import type { Session } from "./auth-store.js";
import { type EnvironmentContext, effectiveScopes } from "./environment-context.js";
import { OutboundQueue } from "./outbound-queue.js";
import {
  authorizationFailure,
  type ClientMessage,
  chunkMessage,
  decodeFrame,
  defectMessage,
  exitFailure,
  exitSuccess,
  type FailureCause,
  interruptCause,
  PONG,
  unknownTagDefect,
} from "./rpc-frames.js";
import { isCommandTag, requiredScopeForTag } from "./scopes.js";
import { isConfigTag, patchConfigValue } from "./served-config.js";

type StreamEnd = Exclude<RpcOutcome, { kind: "success" }> | { kind: "complete" };

interface UnaryCall {
  readonly kind: "unary";
  readonly tag: string;
}

interface StreamCall {
  readonly kind: "stream";
  readonly tag: string;
  handle?: StreamHandle;
  /** Batches emitted while the previous Chunk waits for its Ack, one future Chunk each. */
  readonly pending: unknown[][];
  awaitingAck: boolean;
  end?: StreamEnd;
}

/**
 * One authenticated `/ws` socket: decodes frames, checks each RPC's scope against the session as
 * it is *now*, calls the model, and gates every stream to one un-Acked Chunk at a time.
 */
export class RpcConnection {
  readonly #ctx: EnvironmentContext;
  readonly #socket: WebSocket;
  readonly #session: Session;
  readonly #out: OutboundQueue;
  readonly #calls = new Map<string, UnaryCall | StreamCall>();
  #ended = false;
  #closed = false;

  constructor(ctx: EnvironmentContext, socket: WebSocket, session: Session) {
    this.#ctx = ctx;
    this.#socket = socket;
    this.#session = session;
    this.#out = new OutboundQueue(socket, ctx.faults);
    socket.on("message", (data, isBinary) => {
      if (!isBinary) this.#onFrame(data.toString());
    });
    socket.on("close", () => this.#shutdown());
    socket.on("error", () => this.#shutdown());
  }

  /** Destroys the socket at once (dropSockets, close, dropSocketAfterDispatch). */
  terminate(): void {
    this.#shutdown();
    this.#socket.terminate();
  }

  #shutdown(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#out.close();
    for (const call of this.#calls.values()) if (call.kind === "stream") call.handle?.close();
    this.#calls.clear();
  }

  #onFrame(text: string): void {
    // A hanging server reads frames and never answers them (Ping included).
    if (this.#closed) return;
    if (this.#ctx.faults.current.hang) {
      this.#ctx.faults.reportHeld("frame");
      return;
    }
    const frame = decodeFrame(text);
    if (!frame.ok) {
      this.#out.send(defectMessage(frame.defect));
      return;
    }
    for (const message of frame.messages) this.#onMessage(message);
  }

  #onMessage(message: ClientMessage): void {
    switch (message._tag) {
      case "Ping":
        this.#out.send(PONG);
        return;
      case "Eof":
        // The client will send no more requests; running calls and streams carry on.
        this.#ended = true;
        return;
      case "Ack":
        this.#onAck(message.requestId);
        return;
      case "Interrupt":
        this.#onInterrupt(message.requestId);
        return;
      case "Request":
        if (!this.#ended) this.#onRequest(message.id, message.tag, message.payload);
        return;
    }
  }

  #onRequest(id: string, tag: string, payload: unknown): void {
    const model = this.#ctx.model;
    if (!model.knownTags().includes(tag)) {
      this.#out.send(
        model.unknownTagAnswer === "connection-defect"
          ? defectMessage(`Unknown request tag: ${tag}`)
          : exitFailure(id, unknownTagDefect(tag)),
      );
      return;
    }
    const requiredScope = requiredScopeForTag(tag);
    if (!effectiveScopes(this.#ctx, this.#session).includes(requiredScope)) {
      this.#out.send(exitFailure(id, authorizationFailure(requiredScope)));
      return;
    }
    if (model.isStreamTag(tag)) this.#openStream(id, tag, payload);
    else void this.#callUnary(id, tag, payload);
  }

  async #callUnary(id: string, tag: string, payload: unknown): Promise<void> {
    const call: UnaryCall = { kind: "unary", tag };
    this.#calls.set(id, call);
    let outcome: RpcOutcome;
    try {
      outcome = await this.#ctx.model.callUnary(tag, payload);
    } catch (error) {
      outcome = { kind: "die", defect: error instanceof Error ? error.message : String(error) };
    }
    // Interrupted (already answered) or the socket is gone.
    if (this.#calls.get(id) !== call) return;
    this.#calls.delete(id);
    if (isCommandTag(tag) && outcome.kind === "success" && this.#ctx.faults.current.dropSocketAfterDispatch) {
      // "Lost after the send": the command is applied, the client never learns it. One shot.
      this.#ctx.faults.set({ dropSocketAfterDispatch: undefined });
      this.terminate();
      return;
    }
    const defect = this.#ctx.faults.current.defectAfterDispatch;
    if (isCommandTag(tag) && outcome.kind === "success" && defect !== undefined) {
      this.#ctx.faults.set({ defectAfterDispatch: undefined });
      this.#out.send(this.#exitFor(id, tag, { kind: "die", defect }));
      return;
    }
    this.#out.send(this.#exitFor(id, tag, outcome));
  }

  #exitFor(id: string, tag: string, outcome: RpcOutcome): Record<string, unknown> {
    switch (outcome.kind) {
      case "success":
        return exitSuccess(
          id,
          isConfigTag(tag) ? patchConfigValue(this.#ctx, tag, outcome.value) : outcome.value,
        );
      case "fail":
        return exitFailure(id, { _tag: "Fail", error: outcome.error });
      case "die":
        return exitFailure(id, { _tag: "Die", defect: outcome.defect });
    }
  }

  #openStream(id: string, tag: string, payload: unknown): void {
    const call: StreamCall = { kind: "stream", tag, pending: [], awaitingAck: false };
    this.#calls.set(id, call);
    const live = () => this.#calls.get(id) === call && !call.end;
    const result = this.#ctx.model.openStream(tag, payload, {
      emit: (values) => {
        if (!live() || values.length === 0) return;
        const served = isConfigTag(tag)
          ? values.map((v) => patchConfigValue(this.#ctx, tag, v))
          : [...values];
        call.pending.push(served);
        this.#flush(id, call);
      },
      end: (outcome) => {
        if (!live()) return;
        call.end = outcome ?? { kind: "complete" };
        this.#flush(id, call);
      },
    });
    if (result.kind === "open") {
      if (this.#calls.get(id) === call) call.handle = result.handle;
      else result.handle.close();
      return;
    }
    if (this.#calls.get(id) !== call) return;
    this.#calls.delete(id);
    this.#out.send(this.#exitFor(id, tag, result));
  }

  /** Sends the next Chunk if none is waiting for an Ack; the Exit follows the last Acked Chunk. */
  #flush(id: string, call: StreamCall): void {
    if (call.awaitingAck || this.#calls.get(id) !== call) return;
    const next = call.pending.shift();
    if (next) {
      call.awaitingAck = true;
      this.#out.send(chunkMessage(id, next));
      return;
    }
    if (!call.end) return;
    this.#calls.delete(id);
    call.handle?.close();
    const end = call.end;
    this.#out.send(end.kind === "complete" ? exitSuccess(id) : this.#exitFor(id, call.tag, end));
  }

  #onAck(requestId: string): void {
    const call = this.#calls.get(requestId);
    if (call?.kind !== "stream") return;
    call.awaitingAck = false;
    this.#flush(requestId, call);
  }

  /** Interrupt of an in-flight call answers per method; for an unknown id nothing comes back (59). */
  #onInterrupt(requestId: string): void {
    const call = this.#calls.get(requestId);
    if (!call) return;
    this.#calls.delete(requestId);
    if (call.kind === "stream") call.handle?.close();
    const cause: FailureCause = interruptCause(call.tag, this.#ctx.nextFiberId());
    this.#out.send(exitFailure(requestId, cause));
  }
}
