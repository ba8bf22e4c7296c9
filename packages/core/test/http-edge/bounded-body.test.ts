import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BoundedRead,
  type ByteHold,
  parseJsonBytes,
  readBoundedBody,
  readBoundedRequest,
} from "../../src/http-edge/index.js";

// The one body reader, attacked over a real socket the way a hostile client would send a body:
// a declared length over the cap, no length at all (chunked), a length that lies either way. The
// server turns Node's request into a web Request as @hono/node-server does (the stream as is), or,
// on a path starting `/node`, reads Node's request itself (readBoundedRequest, as the gate's relay does).
const CAP = 1024;
let server: Server;
let port: number;
const outcomes: BoundedRead[] = [];

function asWebRequest(incoming: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return new Request(`http://${incoming.headers.host ?? "x"}${incoming.url ?? "/"}`, {
    method: incoming.method ?? "POST",
    headers,
    body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}

beforeAll(async () => {
  server = createServer(async (incoming, answer) => {
    const read = incoming.url?.startsWith("/node")
      ? await readBoundedRequest(incoming, { maxBytes: CAP })
      : await readBoundedBody(asWebRequest(incoming), { maxBytes: CAP });
    outcomes.push(read);
    const size = read.kind === "ok" ? read.bytes.byteLength : -1;
    const text = JSON.stringify({
      kind: read.kind,
      size,
      declared: "declared" in read ? read.declared : null,
    });
    answer.writeHead(read.kind === "ok" ? 200 : read.kind === "too_large" ? 413 : 400, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      connection: "close",
    });
    answer.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes `head` (and `chunks` one by one) on a raw socket; resolves with the first answer's text. */
function raw(head: string, chunks: Array<string | Buffer> = [], end = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(head);
    for (const chunk of chunks) socket.write(chunk);
    if (end) socket.end();
  });
}

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
/** The first answer's JSON body (its Content-Length says where it ends). */
function body(answer: string): Record<string, unknown> {
  const start = answer.indexOf("\r\n\r\n") + 4;
  const length = Number(/content-length: (\d+)/i.exec(answer)?.[1] ?? 0);
  return JSON.parse(answer.slice(start, start + length)) as Record<string, unknown>;
}
describe.each([
  ["readBoundedBody (a web Request)", "/"],
  ["readBoundedRequest (Node's request)", "/node"],
])("%s over a socket", (_reader, path) => {
  const head = (extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}\r\n`;

  it("refuses a declared length over the cap unread: the answer comes before a byte of the body is sent", async () => {
    // The socket stays open and sends no body: only a refusal from the headers alone can answer.
    const answer = await raw(head(`Content-Length: ${CAP * 1000}\r\n`), [], false);
    expect(status(answer)).toBe(413);
    expect(body(answer)).toMatchObject({ kind: "too_large", declared: true });
  });

  it("counts a chunked body with no length and refuses it at the chunk that passes the cap", async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const answer = await raw(head("Transfer-Encoding: chunked\r\n"), [
      chunk("x".repeat(600)),
      chunk("x".repeat(600)),
      "0\r\n\r\n",
    ]);
    expect(status(answer)).toBe(413);
    expect(body(answer)).toMatchObject({ kind: "too_large", declared: false });
  });

  it("takes a chunked body just under the cap whole", async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const answer = await raw(head("Transfer-Encoding: chunked\r\n"), [
      chunk("x".repeat(512)),
      chunk("y".repeat(CAP - 512)),
      "0\r\n\r\n",
    ]);
    expect(status(answer)).toBe(200);
    expect(body(answer)).toMatchObject({ kind: "ok", size: CAP });
  });

  it("reads no more than a length that lies low: the bytes past it are not the body", async () => {
    // What follows the ten declared bytes is read as the next request (here an oversized one).
    const next = head(`Content-Length: ${CAP * 4}\r\n`) + "x".repeat(CAP * 4);
    const answer = await raw(head("Content-Length: 10\r\n"), [`0123456789${next}`]);
    expect(status(answer)).toBe(200);
    expect(body(answer)).toMatchObject({ kind: "ok", size: 10 });
  });

  it("ends a body that lies high (the client stops sending and leaves) as aborted, not as a short body", async () => {
    const before = outcomes.length;
    await raw(head("Content-Length: 500\r\n"), ["only part of it"]);
    // The client closed its side before the answer: the server saw the cut body.
    await expect.poll(() => outcomes.length).toBeGreaterThan(before);
    expect(outcomes.at(-1)?.kind).toBe("aborted");
  });

  it("refuses a length over the cap even when the bytes sent are few", async () => {
    const answer = await raw(head(`Content-Length: ${CAP + 1}\r\n`), ["{}"]);
    expect(status(answer)).toBe(413);
  });
});

describe("readBoundedBody on answers and with a hold", () => {
  it("refuses an answer whose declared length passes the cap, and cancels its stream", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
    });
    const answer = new Response(stream, { headers: { "content-length": String(CAP + 1) } });
    expect(await readBoundedBody(answer, { maxBytes: CAP })).toEqual({ kind: "too_large", declared: true });
    expect(cancelled).toBe(true);
  });

  it("stops at a chunk the hold cannot take, and gives back what it took", async () => {
    let held = 0;
    const hold: ByteHold = {
      take: (bytes) => {
        if (held + bytes > 100) return false;
        held += bytes;
        return true;
      },
      release: (bytes) => {
        held -= bytes;
      },
    };
    const chunks = [new Uint8Array(60), new Uint8Array(60)];
    const answer = new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      }),
    );
    expect(await readBoundedBody(answer, { maxBytes: CAP, hold })).toEqual({ kind: "over_hold" });
    expect(held).toBe(0);
  });

  it("answers a stream that fails midway as aborted, with the error", async () => {
    const failure = new Error("connection reset");
    const answer = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(3));
          controller.error(failure);
        },
      }),
    );
    expect(await readBoundedBody(answer, { maxBytes: CAP })).toEqual({ kind: "aborted", error: failure });
  });

  it("parses only strict UTF-8 JSON: bytes that are not UTF-8 and text that is not JSON are told apart", () => {
    expect(parseJsonBytes(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).toEqual({ kind: "not_utf8" });
    expect(parseJsonBytes(Buffer.from("jsonrpc=2.0&method=x"))).toEqual({ kind: "not_json" });
    expect(parseJsonBytes(Buffer.from('{"a":"é"}'))).toMatchObject({ kind: "json", value: { a: "é" } });
  });
});
