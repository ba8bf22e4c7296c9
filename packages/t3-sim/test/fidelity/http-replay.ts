/** Replays one captured HTTP exchange (or refused/accepted upgrade) against the simulator. */
import WebSocket from "ws";
import type { Fixture } from "./fixtures.js";
import { compareValues, type Difference } from "./shape.js";

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | undefined>;
  readonly body: unknown;
}

/** Headers whose presence and value the capture recorded (README surprise 19). */
const RECORDED_HEADERS = ["cache-control", "access-control-allow-origin"] as const;

export interface HttpRequestPlan {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

function encodeBody(headers: Record<string, string>, body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  const contentType = headers["content-type"] ?? "";
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    return new URLSearchParams(body as Record<string, string>).toString();
  }
  return JSON.stringify(body);
}

export async function sendHttp(baseUrl: string, plan: HttpRequestPlan): Promise<HttpAnswer> {
  const body = encodeBody(plan.headers, plan.body);
  const response = await fetch(`${baseUrl}${plan.path}`, {
    method: plan.method,
    headers: plan.headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? undefined;
  const headers: Record<string, string | undefined> = { "content-type": contentType };
  for (const name of RECORDED_HEADERS) headers[name] = response.headers.get(name) ?? undefined;
  const isJson = contentType?.includes("json") ?? false;
  return { status: response.status, headers, body: isJson ? JSON.parse(text) : text === "" ? null : text };
}

/**
 * Opens a WebSocket the way the capture did and reports the HTTP side of the handshake: 101 on
 * success (the socket is closed at once), or the refusal's status, headers and JSON body.
 */
export function sendUpgrade(wsUrl: string, headers: Record<string, string>): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, { headers });
    socket.once("open", () => {
      socket.terminate();
      resolve({ status: 101, headers: {}, body: null });
    });
    socket.once("unexpected-response", (_request, response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const contentType = response.headers["content-type"];
        const acao = response.headers["access-control-allow-origin"];
        resolve({
          status: response.statusCode ?? 0,
          headers: {
            "content-type": contentType,
            "access-control-allow-origin": typeof acao === "string" ? acao : undefined,
            "cache-control": response.headers["cache-control"],
          },
          body: contentType?.includes("json") ? JSON.parse(text) : text === "" ? null : text,
        });
      });
    });
    socket.once("error", (error) => {
      // After "unexpected-response" ws reports the aborted handshake as an error too.
      if (!/Unexpected server response/.test(String(error))) reject(error);
    });
  });
}

const family = (contentType: string | undefined) => contentType?.split(";")[0]?.trim() ?? "none";

export function compareHttp(fixture: Fixture, actual: HttpAnswer): Difference[] {
  const out: Difference[] = [];
  const expected = fixture.response;
  if (expected.status !== actual.status) {
    out.push({
      path: "status",
      message: `status ${expected.status} in the capture, ${actual.status} in the simulator`,
    });
  }
  const expectedHeaders = expected.headers ?? {};
  const expectedFamily = family(expectedHeaders["content-type"]);
  const actualFamily = family(actual.headers["content-type"]);
  // 101 answers carry no recorded headers; only refusals and plain HTTP answers do.
  if (expected.status !== 101 && expectedFamily !== actualFamily) {
    out.push({
      path: "headers.content-type",
      message: `${expectedFamily} in the capture, ${actualFamily} in the simulator`,
    });
  }
  if (expected.status !== 101) {
    for (const name of RECORDED_HEADERS) {
      const want = expectedHeaders[name];
      const got = actual.headers[name];
      if (want !== got)
        out.push({
          path: `headers.${name}`,
          message: `${want ?? "absent"} in the capture, ${got ?? "absent"} in the simulator`,
        });
    }
  }
  compareValues(expected.body ?? null, actual.body, "body", out);
  return out;
}
