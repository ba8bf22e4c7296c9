/**
 * The relay client writes its request and reads the gate's answer itself, on kept-alive loopback
 * connections. Here a raw TCP server plays a gate, and a hostile or broken process on the gate's
 * port: answers split byte by byte, chunked with extensions and trailers, framed twice, followed by
 * extra bytes, bytes sent to an idle connection, heads and bodies past the limits, connections cut
 * short. Each is read whole or refused as gate_unavailable; an answer is never read on another
 * exchange's connection, and a connection that saw anything doubtful is never used again.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConnectorError, isConnectorError } from "@t3-connector/core";
import { MAX_RELAY_ANSWER_BYTES, RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRelayClient, type RelayClient } from "../../src/relay-client.js";

interface SeenRequest {
  readonly connection: number;
  readonly head: string;
  readonly body: string;
}

/** How the stand-in answers one request: writes whatever it likes on the request's connection. */
type Answer = (socket: Socket, request: SeenRequest) => void;

let stateDir: string;
let capability: string;
let port: number;
let answer: Answer;
const seen: SeenRequest[] = [];
const connections: Socket[] = [];
/** Every connection of the file, closed at its end (the idle ones would linger for their timeout). */
const everyConnection: Socket[] = [];

const server = createServer((socket) => {
  const connection = connections.push(socket) - 1;
  everyConnection.push(socket);
  let buffer = "";
  socket.on("error", () => undefined);
  socket.on("data", (chunk) => {
    buffer += chunk.toString("latin1");
    for (;;) {
      const headEnd = buffer.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = buffer.slice(0, headEnd);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < headEnd + 4 + length) return;
      const request = { connection, head, body: buffer.slice(headEnd + 4, headEnd + 4 + length) };
      buffer = buffer.slice(headEnd + 4 + length);
      seen.push(request);
      answer(socket, request);
    }
  });
});

const ENVIRONMENTS = JSON.stringify({ environments: [] });

function framed(body: string, extraHead = ""): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extraHead}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Writes `text` one byte at a time, each in its own segment. */
async function dribble(socket: Socket, text: string): Promise<void> {
  for (const byte of Buffer.from(text)) {
    socket.write(Buffer.of(byte));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function failureOf(pending: Promise<unknown>): Promise<ConnectorError> {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isConnectorError(error)) throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "t3c-relay-strict-"));
  capability = randomBytes(32).toString("base64url");
  await writeFile(join(stateDir, "relay-capability"), capability, { mode: 0o600 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of everyConnection) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(stateDir, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
  connections.length = 0;
});

let relay: RelayClient;
beforeEach(() => {
  relay = createRelayClient({ port, stateDir, timeoutMs: 10_000 });
});

describe("the relay client's own HTTP exchange", () => {
  it("sends one well-formed request with the Host the gate checks and the capability", async () => {
    answer = (socket) => socket.write(framed(ENVIRONMENTS));
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    const [request] = seen;
    expect(request?.head.split("\r\n")).toEqual([
      "POST /relay HTTP/1.1",
      `host: localhost:${port}`,
      "content-type: application/json",
      `content-length: ${Buffer.byteLength(request?.body ?? "")}`,
      `${RELAY_HEADER}: ${capability}`,
    ]);
    expect(JSON.parse(request?.body ?? "")).toEqual({ op: "environments" });
  });

  it("reads an answer split byte by byte, and the next call reuses the connection", async () => {
    answer = (socket) => void dribble(socket, framed(ENVIRONMENTS, "Connection: keep-alive\r\n"));
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 0]);
  });

  it("reads a chunked answer with chunk extensions and trailers, however it is split", async () => {
    const half = ENVIRONMENTS.length >> 1;
    const chunked =
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" +
      `${half.toString(16)};note=x\r\n${ENVIRONMENTS.slice(0, half)}\r\n` +
      `${(ENVIRONMENTS.length - half).toString(16).toUpperCase()}\r\n${ENVIRONMENTS.slice(half)}\r\n` +
      "0\r\nx-trailer: 1\r\n\r\n";
    answer = (socket) => void dribble(socket, chunked);
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    answer = (socket) => socket.write(chunked);
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 0]);
  });

  it("reads an answer framed by the connection's end, and opens a new connection next", async () => {
    answer = (socket) =>
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${ENVIRONMENTS}`);
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    answer = (socket) => socket.write(framed(ENVIRONMENTS));
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 1]);
  });

  it("does not reuse a connection the gate said it closes", async () => {
    answer = (socket) => socket.write(framed(ENVIRONMENTS, "Connection: close\r\n"));
    await relay.call({ op: "environments" });
    await relay.call({ op: "environments" });
    expect(seen.map((request) => request.connection)).toEqual([0, 1]);
  });

  it("never takes bytes after an answer for the next call's answer: that connection is closed", async () => {
    const forged = JSON.stringify({ environments: [{ forged: true }] });
    answer = (socket, request) => {
      socket.write(framed(ENVIRONMENTS) + (request.connection === 0 ? framed(forged) : ""));
    };
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 1]);
  });

  it("closes an idle connection that receives anything, and answers the next call on a new one", async () => {
    answer = (socket) => socket.write(framed(ENVIRONMENTS));
    await relay.call({ op: "environments" });
    const closed = new Promise((resolve) => connections[0]?.once("close", resolve));
    connections[0]?.write(framed(JSON.stringify({ environments: [{ forged: true }] })));
    await closed;
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 1]);
  });

  it("opens a new connection when the gate closed the idle one", async () => {
    answer = (socket) => socket.write(framed(ENVIRONMENTS));
    await relay.call({ op: "environments" });
    const closed = new Promise((resolve) => connections[0]?.once("close", resolve));
    connections[0]?.end();
    await closed;
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
    expect(seen.map((request) => request.connection)).toEqual([0, 1]);
  });

  it("answers two calls in flight at once, each on its own connection with its own answer", async () => {
    const held: Array<{ socket: Socket; request: SeenRequest }> = [];
    answer = (socket, request) => held.push({ socket, request });
    const first = relay.call({ op: "end_lease", leaseId: "lease-a" });
    const second = relay.call({ op: "end_lease", leaseId: "lease-b" });
    while (held.length < 2) await new Promise((resolve) => setImmediate(resolve));
    // Answered in the opposite order, each with what its own request named.
    for (const { socket, request } of held.reverse()) {
      socket.write(framed(JSON.stringify({ ended: JSON.parse(request.body).leaseId === "lease-a" })));
    }
    await expect(first).resolves.toEqual({ ended: true });
    await expect(second).resolves.toEqual({ ended: false });
    expect(new Set(seen.map((request) => request.connection)).size).toBe(2);
  });
});

describe("what is not a gate's answer is refused as gate_unavailable", () => {
  const refusals: Array<[string, string, string]> = [
    ["no HTTP at all", "hello\r\n\r\n", "connection_failed"],
    ["an interim answer", "HTTP/1.1 100 Continue\r\n\r\n", "connection_failed"],
    [
      "a header line without a name",
      `HTTP/1.1 200 OK\r\n: x\r\ncontent-length: 2\r\n\r\n{}`,
      "connection_failed",
    ],
    [
      "a Content-Length that is no number",
      "HTTP/1.1 200 OK\r\ncontent-length: 2x\r\n\r\n{}",
      "connection_failed",
    ],
    [
      "two different Content-Lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}",
      "connection_failed",
    ],
    [
      "both Content-Length and chunked",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
      "connection_failed",
    ],
    [
      "a coding other than chunked",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
      "connection_failed",
    ],
    [
      "a chunk size that is not hex",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "connection_failed",
    ],
    [
      "a chunk not ended by CRLF",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}xx",
      "connection_failed",
    ],
    ["a head past 16 KiB", `HTTP/1.1 200 OK\r\nx-pad: ${"a".repeat(17 * 1024)}`, "connection_failed"],
    [
      "a Content-Length past the answer limit",
      `HTTP/1.1 200 OK\r\ncontent-length: ${MAX_RELAY_ANSWER_BYTES + 1}\r\n\r\n`,
      "answer_too_large",
    ],
    [
      "chunks past the answer limit",
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${(MAX_RELAY_ANSWER_BYTES + 1).toString(16)}\r\n`,
      "answer_too_large",
    ],
  ];
  for (const [what, text, reason] of refusals) {
    it(`${what} (${reason}), and its connection is not used again`, async () => {
      answer = (socket, request) => socket.write(request.connection === 0 ? text : framed(ENVIRONMENTS));
      const error = await failureOf(relay.call({ op: "environments" }));
      expect(error.code).toBe("gate_unavailable");
      expect(error.details?.reason).toBe(reason);
      await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
      expect(seen.map((request) => request.connection)).toEqual([0, 1]);
    });
  }

  it("a body past the answer limit sent without any length (answer_too_large)", async () => {
    answer = (socket) => {
      socket.write("HTTP/1.1 200 OK\r\n\r\n");
      socket.write("a".repeat(MAX_RELAY_ANSWER_BYTES + 1));
    };
    expect((await failureOf(relay.call({ op: "environments" }))).details?.reason).toBe("answer_too_large");
  });

  it("a connection cut before the answer ended (connection_failed)", async () => {
    answer = (socket) => socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"environments"`);
    const error = await failureOf(relay.call({ op: "environments" }));
    expect(error.code).toBe("gate_unavailable");
    expect(error.details?.reason).toBe("connection_failed");
  });

  it("a connection reset with no answer at all (connection_failed)", async () => {
    answer = (socket) => socket.resetAndDestroy();
    const error = await failureOf(relay.call({ op: "environments" }));
    expect(error.code).toBe("gate_unavailable");
    expect(error.details?.reason).toBe("connection_failed");
  });
});
