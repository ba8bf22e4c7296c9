/**
 * A protocol-1 T3 as the real 0.0.28 answered (`fixtures/t3-0.0.28/`, ADR 0069): its descriptor
 * (no protocol field), its token's session, its shell with V1 rows, and its web page for every
 * route it lacks. Served over a real loopback socket, so the connector meets what a real V1
 * server sends. `scopes` replaces the session's (the gate pairs with the operate pair).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listenOnLoopback } from "./web-page-proxy.js";

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/t3-0.0.28");

interface Capture {
  response: { status: number; headers: { "content-type": string | null }; body: unknown };
}

/** One 0.0.28 capture, by file name (e.g. `03-http-shell-v1-rows.json`). */
export function readV1Fixture(file: string): Capture {
  return JSON.parse(readFileSync(path.join(DIR, file), "utf8")) as Capture;
}

export const V1_DESCRIPTOR = readV1Fixture("01-http-descriptor.json").response.body as {
  environmentId: string;
  serverVersion: string;
};

const ROUTES: Readonly<Record<string, string>> = {
  "/.well-known/t3/environment": "01-http-descriptor.json",
  "/api/auth/session": "02-http-auth-session-read.json",
  "/api/orchestration/shell": "03-http-shell-v1-rows.json",
};
const WEB_PAGE = readV1Fixture("04-http-projects.json").response;

export interface V1Server {
  readonly url: string;
  readonly environmentId: string;
  readonly version: string;
  /** Requests by path, in order, so a test can say nothing but reads reached it. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startV1Server(options: { scopes?: readonly string[] } = {}): Promise<V1Server> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const route = new URL(request.url ?? "/", "http://x").pathname;
    requests.push(`${request.method} ${route}`);
    const file = ROUTES[route];
    const answer = file === undefined ? WEB_PAGE : readV1Fixture(file).response;
    let body = answer.body;
    if (request.method === "POST" && route === "/oauth/token") {
      // The exchange grants what was asked, as the real 0.0.28 did (capture 07).
      const exchange = readV1Fixture("07-http-oauth-token-exchange-read-scope.json").response;
      const scope = options.scopes?.join(" ") ?? "orchestration:read";
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ...(exchange.body as object), access_token: "v1-access-token", scope }));
      return;
    }
    if (route === "/api/auth/session" && options.scopes !== undefined) {
      body = { ...(body as object), scopes: [...options.scopes] };
    }
    response.writeHead(answer.status, { "content-type": answer.headers["content-type"] ?? "text/plain" });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  });
  return {
    url: await listenOnLoopback(server),
    environmentId: V1_DESCRIPTOR.environmentId,
    version: V1_DESCRIPTOR.serverVersion,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
