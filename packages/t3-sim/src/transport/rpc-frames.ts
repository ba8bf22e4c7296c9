import { LIFECYCLE_STREAM_INTERRUPT_DEFECT, THREAD_STREAM_INTERRUPT_DEFECT } from "../model/errors.js";

/**
 * Effect-RPC JSON framing: a text frame holds one message or an array of
 * messages. Server messages are built here so every byte-relevant shape lives in one file.
 */

export type ClientMessage =
  | { readonly _tag: "Request"; readonly id: string; readonly tag: string; readonly payload: unknown }
  | { readonly _tag: "Ack"; readonly requestId: string }
  | { readonly _tag: "Interrupt"; readonly requestId: string }
  | { readonly _tag: "Ping" }
  | { readonly _tag: "Eof" };

export type DecodedFrame =
  | { readonly ok: true; readonly messages: ClientMessage[] }
  /** The whole frame is refused with a top-level Defect (fixture 64). */
  | { readonly ok: false; readonly defect: string };

export function decodeFrame(text: string): DecodedFrame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, defect: error instanceof Error ? error.message : String(error) };
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const messages: ClientMessage[] = [];
  for (const item of items) {
    const message = decodeMessage(item);
    if (typeof message === "string") return { ok: false, defect: message };
    messages.push(message);
  }
  return { ok: true, messages };
}

function decodeMessage(item: unknown): ClientMessage | string {
  const record = item !== null && typeof item === "object" ? (item as Record<string, unknown>) : {};
  const tag = record._tag;
  switch (tag) {
    case "Request":
      if (typeof record.id !== "string" || typeof record.tag !== "string") return "Invalid Request message";
      return { _tag: "Request", id: record.id, tag: record.tag, payload: record.payload };
    case "Ack":
    case "Interrupt":
      if (typeof record.requestId !== "string") return `Invalid ${tag} message`;
      return { _tag: tag, requestId: record.requestId };
    case "Ping":
    case "Eof":
      return { _tag: tag };
    default:
      return `Unknown request tag: ${String(tag)}`;
  }
}

export type FailureCause =
  | { readonly _tag: "Fail"; readonly error: unknown }
  | { readonly _tag: "Die"; readonly defect: unknown }
  | { readonly _tag: "Interrupt"; readonly fiberId: number };

export function chunkMessage(requestId: string, values: readonly unknown[]): Record<string, unknown> {
  return { _tag: "Chunk", requestId, values };
}

/** A unary success carries its value; a finished stream's void value is omitted, as JSON drops undefined. */
export function exitSuccess(requestId: string, value?: unknown): Record<string, unknown> {
  return {
    _tag: "Exit",
    requestId,
    exit: value === undefined ? { _tag: "Success" } : { _tag: "Success", value },
  };
}

export function exitFailure(requestId: string, cause: FailureCause): Record<string, unknown> {
  return { _tag: "Exit", requestId, exit: { _tag: "Failure", cause: [cause] } };
}

export const PONG = { _tag: "Pong" } as const;

export function defectMessage(defect: string): Record<string, unknown> {
  return { _tag: "Defect", defect };
}

export function unknownTagDefect(tag: string): FailureCause {
  return { _tag: "Die", defect: `Unknown request tag: ${tag}` };
}

export function authorizationFailure(requiredScope: string): FailureCause {
  return {
    _tag: "Fail",
    error: {
      _tag: "EnvironmentAuthorizationError",
      message: `The authenticated token is missing required scope: ${requiredScope}.`,
      requiredScope,
    },
  };
}

/**
 * What the real server answers when a client interrupts a stream (fixtures 37, 54-56, 81).
 * Most streams answer with an Interrupt cause; for these the server fails to encode its own
 * interrupt cause against the method's error union and sends this Die instead.
 */
const INTERRUPT_DIE_BY_TAG: Readonly<Record<string, string>> = {
  "orchestration.subscribeThread": THREAD_STREAM_INTERRUPT_DEFECT,
  subscribeServerLifecycle: LIFECYCLE_STREAM_INTERRUPT_DEFECT,
};

export function interruptCause(tag: string, fiberId: number): FailureCause {
  const defect = INTERRUPT_DIE_BY_TAG[tag];
  return defect === undefined ? { _tag: "Interrupt", fiberId } : { _tag: "Die", defect };
}
