import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import type { Session } from "./auth-store.js";
import {
  type CredentialResult,
  type EnvironmentContext,
  resolveBearer,
  resolveTicket,
} from "./environment-context.js";
import { type HttpAnswer, jsonAnswer, textAnswer } from "./http-answer.js";
import { authInvalidBody, SPA_FALLBACK_TEXT } from "./http-bodies.js";

export const ORCHESTRATION_PROTOCOL_QUERY_PARAM = "orchestrationProtocol";
export const WEBSOCKET_TICKET_QUERY_PARAM = "wsTicket";

/**
 * Decides an upgrade: protocol first (before any auth work, so a 426 never spends a ticket), then
 * the `wsTicket` query parameter or else the `Authorization: Bearer` header.
 */
export function checkUpgrade(
  ctx: EnvironmentContext,
  request: IncomingMessage,
): { readonly ok: true; readonly session: Session } | { readonly ok: false; readonly answer: HttpAnswer } {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname !== "/ws") return { ok: false, answer: textAnswer(503, "text/plain", SPA_FALLBACK_TEXT) };
  if (!ctx.transitional && url.searchParams.get(ORCHESTRATION_PROTOCOL_QUERY_PARAM) !== "2") {
    return {
      ok: false,
      answer: jsonAnswer(426, {
        code: "orchestration_protocol_incompatible",
        message: "Update this client to one that supports orchestration protocol 2.",
        orchestrationProtocolVersion: 2,
      }),
    };
  }
  const ticket = url.searchParams.get(WEBSOCKET_TICKET_QUERY_PARAM);
  const credential: CredentialResult =
    ticket === null ? resolveBearer(ctx, request.headers.authorization) : resolveTicket(ctx, ticket);
  if (!credential.ok) return { ok: false, answer: jsonAnswer(401, authInvalidBody(credential.reason)) };
  return { ok: true, session: credential.session };
}

/** Writes a refused upgrade as a plain HTTP response (fixtures 13, 13b) and closes the socket. */
export function refuseUpgrade(socket: Duplex, answer: HttpAnswer): void {
  const body = answer.body ?? "";
  const headers = {
    ...answer.headers,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}`];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

export function acceptUpgrade(
  wss: WebSocketServer,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  onSocket: (ws: WebSocket) => void,
): void {
  wss.handleUpgrade(request, socket, head, onSocket);
}
