import { ConnectorError } from "../../errors.js";

/**
 * Effect-RPC JSON framing. Each text frame holds one message or a JSON array of
 * messages. Server frames whose `_tag` this build does not know are returned as `Unknown` and
 * ignored by the connection, so a newer server's additions never break the socket; a frame that
 * is not JSON, not an object, or a known message missing its fields is a `protocol_error`.
 */
export type ClientFrame =
  | { _tag: "Request"; id: string; tag: string; payload: unknown; headers: [string, string][] }
  | { _tag: "Ack"; requestId: string }
  | { _tag: "Interrupt"; requestId: string }
  | { _tag: "Ping" }
  | { _tag: "Eof" };

export type ExitValue = { _tag: "Success"; value: unknown } | { _tag: "Failure"; cause: unknown };

export type ServerFrame =
  | { _tag: "Exit"; requestId: string; exit: ExitValue }
  | { _tag: "Chunk"; requestId: string; values: unknown[] }
  | { _tag: "Pong" }
  | { _tag: "Defect"; defect: unknown }
  | { _tag: "ClientProtocolError"; error: unknown }
  | { _tag: "Unknown"; originalTag: string };

export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

export function encodeFrame(frame: ClientFrame): string {
  return JSON.stringify(frame);
}

/** Text of a WebSocket message, whatever the runtime delivered it as. */
export function frameText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]).toString("utf8");
  throw new ConnectorError("protocol_error", "the server sent a WebSocket message that is not text");
}

export function decodeServerFrames(text: string, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES): ServerFrame[] {
  if (Buffer.byteLength(text, "utf8") > maxFrameBytes) {
    throw new ConnectorError("protocol_error", `the server sent a frame larger than ${maxFrameBytes} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConnectorError("protocol_error", "the server sent a frame that is not JSON");
  }
  const messages = Array.isArray(json) ? json : [json];
  return messages.map(decodeMessage);
}

function decodeMessage(message: unknown): ServerFrame {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw new ConnectorError("protocol_error", "the server sent a frame that is not an object");
  }
  const record = message as Record<string, unknown>;
  const tag = record._tag;
  if (typeof tag !== "string") {
    throw new ConnectorError("protocol_error", "the server sent a frame without a _tag");
  }
  switch (tag) {
    case "Exit": {
      const exit = record.exit as Record<string, unknown> | undefined;
      const requestId = requestIdOf(record, tag);
      if (exit?._tag === "Success")
        return { _tag: "Exit", requestId, exit: { _tag: "Success", value: exit.value } };
      if (exit?._tag === "Failure")
        return { _tag: "Exit", requestId, exit: { _tag: "Failure", cause: exit.cause } };
      throw new ConnectorError(
        "protocol_error",
        "the server sent an Exit that is neither Success nor Failure",
      );
    }
    case "Chunk": {
      const requestId = requestIdOf(record, tag);
      if (!Array.isArray(record.values)) {
        throw new ConnectorError("protocol_error", "the server sent a Chunk without values");
      }
      return { _tag: "Chunk", requestId, values: record.values };
    }
    case "Pong":
      return { _tag: "Pong" };
    case "Defect":
      return { _tag: "Defect", defect: record.defect };
    case "ClientProtocolError":
      return { _tag: "ClientProtocolError", error: record.error };
    default:
      return { _tag: "Unknown", originalTag: tag };
  }
}

/** Effect encodes request ids as strings; a numeric id is accepted and normalized. */
function requestIdOf(record: Record<string, unknown>, tag: string): string {
  const id = record.requestId;
  if (typeof id === "string") return id;
  if (typeof id === "number" || typeof id === "bigint") return String(id);
  throw new ConnectorError("protocol_error", `the server sent a ${tag} without a requestId`);
}
