import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "@t3-connector/test-support/self-signed-tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { isConnectorError } from "../../src/errors.js";
import { requestJson } from "../../src/t3/http-transport.js";
import { nodeHttpFetch, type T3Fetch } from "../../src/t3/node-http-fetch.js";

// The T3 client's exchange runs on node:http instead of Node's fetch (docs/adr/0060). Every case
// here goes through requestJson twice, once with each, against the same real HTTP server, and the
// outcomes must be the same: the value, or the error's code and message.

const JSON_TEXT = JSON.stringify({ answer: "ok", n: 1 });
const COMPRESS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = req.url ?? "/";
  if (path === "/json") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON_TEXT);
  if (path.startsWith("/compressed/")) {
    const encoding = path.slice("/compressed/".length);
    const offered = String(req.headers["accept-encoding"] ?? "");
    if (!offered.includes(encoding) && !path.endsWith("-anyway")) return void res.writeHead(406).end();
    const name = encoding.replace(/-anyway$/, "");
    const compress = COMPRESS[name] ?? gzipSync;
    return void res
      .writeHead(200, { "content-type": "application/json", "content-encoding": name })
      .end(compress(Buffer.from(JSON_TEXT)));
  }
  if (path === "/echo") {
    const { host: _host, connection: _connection, ...headers } = req.headers;
    const seen = { method: req.method, headers, body };
    return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(seen));
  }
  if (path === "/redirect") return void res.writeHead(302, { location: "/json" }).end();
  if (path === "/html") return void res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
  if (path === "/error") {
    const tagged = { _tag: "NotFound", reason: "thread_not_found" };
    return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify(tagged));
  }
  if (path === "/large")
    return void res.writeHead(200, { "content-type": "application/json" }).end("x".repeat(5000));
  if (path === "/stalls") {
    // Headers and a first chunk, then nothing: the deadline must end the read of the body.
    res.writeHead(200, { "content-type": "application/json" });
    return void res.write("{");
  }
  if (path === "/never") return; // no answer at all
  res.writeHead(500).end();
}

let server: Server;
let tlsServer: Server;
let baseUrl: string;
let closedUrl: string;
let untrustedTlsUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  tlsServer = createTlsServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (req, res) =>
    answer(req, res, ""),
  );
  await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
  untrustedTlsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const open of [server, tlsServer]) {
    open.closeAllConnections();
    await new Promise<void>((resolve) => open.close(() => resolve()));
  }
});

interface Case {
  path: string;
  base?: () => string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  maxBodyBytes?: number;
}

type Outcome = { value: unknown } | { code: string; message: string; status: unknown };

async function outcome(fetcher: T3Fetch, c: Case): Promise<Outcome> {
  try {
    const value = await requestJson(
      {
        method: c.method ?? "GET",
        url: new URL(`${(c.base ?? (() => baseUrl))()}${c.path}`),
        route: `${c.method ?? "GET"} ${c.path}`,
        headers: c.headers ?? {},
        ...(c.body === undefined ? {} : { body: c.body }),
        timeoutMs: c.timeoutMs ?? 5_000,
        fetch: fetcher,
        maxBodyBytes: c.maxBodyBytes ?? 1024 * 1024,
      },
      z.unknown(),
    );
    return { value };
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    return { code: error.code, message: error.message, status: error.status };
  }
}

const CASES: Record<string, Case> = {
  "a JSON answer": { path: "/json" },
  "a gzip answer, decoded": { path: "/compressed/gzip" },
  "a deflate answer, decoded": { path: "/compressed/deflate" },
  "brotli, not asked for": { path: "/compressed/br" },
  "a brotli answer sent anyway, decoded": { path: "/compressed/br-anyway" },
  "the headers sent": {
    path: "/echo",
    headers: { authorization: "Bearer secret", "x-t3-orchestration-protocol": "2" },
  },
  "a string body with no type, sent as text/plain": { path: "/echo", method: "POST", body: "a=1" },
  "a string body with its own type": {
    path: "/echo",
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=x&scope=a+b",
  },
  "a redirect, not followed": { path: "/redirect" },
  "an HTML page where JSON was expected": { path: "/html" },
  "a tagged T3 error": { path: "/error" },
  "an answer past the cap": { path: "/large", maxBodyBytes: 1000 },
  "no answer before the deadline": { path: "/never", timeoutMs: 200 },
  "a body that stalls past the deadline": { path: "/stalls", timeoutMs: 200 },
  "a refused connection": { path: "/json", base: () => closedUrl },
  "an https server whose certificate nobody trusts": { path: "/json", base: () => untrustedTlsUrl },
};

describe("the T3 client's exchange over node:http", () => {
  it.each(Object.entries(CASES))("answers as fetch does: %s", async (_name, c) => {
    const [viaFetch, viaNodeHttp] = await Promise.all([outcome(fetch, c), outcome(nodeHttpFetch, c)]);
    expect(viaNodeHttp).toEqual(viaFetch);
  });

  it("names the system error of a refused connection, as fetch's cause does", async () => {
    const result = await outcome(nodeHttpFetch, CASES["a refused connection"] as Case);
    expect(result).toMatchObject({ code: "unavailable", message: expect.stringContaining("ECONNREFUSED") });
  });

  it("refuses what fetch refuses before sending: credentials in the URL, a scheme other than http(s)", async () => {
    const withCredentials = { path: "/json", base: () => baseUrl.replace("//", "//user:secret@") };
    const [viaFetch, viaNodeHttp] = await Promise.all([
      outcome(fetch, withCredentials),
      outcome(nodeHttpFetch, withCredentials),
    ]);
    expect(viaNodeHttp).toMatchObject({ code: "unavailable" });
    expect(viaFetch).toMatchObject({ code: "unavailable" });
    expect(JSON.stringify(viaNodeHttp)).not.toContain("secret");
    const otherScheme = { path: "/json", base: () => baseUrl.replace("http:", "ftp:") };
    expect(await outcome(nodeHttpFetch, otherScheme)).toEqual(await outcome(fetch, otherScheme));
  });

  it("checks an https server's certificate", async () => {
    const result = await outcome(nodeHttpFetch, { path: "/json", base: () => untrustedTlsUrl });
    expect(result).toMatchObject({
      code: "unavailable",
      message: expect.stringContaining("SELF_SIGNED_CERT"),
    });
  });

  it("rejects with the caller's reason when the caller aborts, before or during the exchange", async () => {
    const before = new AbortController();
    before.abort(new Error("gone"));
    const init = { method: "GET", headers: {}, redirect: "manual" as const };
    await expect(
      nodeHttpFetch(new URL(`${baseUrl}/json`), { ...init, signal: before.signal }),
    ).rejects.toThrow("gone");
    const during = new AbortController();
    const pending = nodeHttpFetch(new URL(`${baseUrl}/never`), { ...init, signal: during.signal });
    during.abort(new Error("stopped"));
    await expect(pending).rejects.toThrow("stopped");
  });
});
