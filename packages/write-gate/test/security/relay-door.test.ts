/**
 * `POST /relay` served by the relay's door before Hono, attacked over a real socket as a hostile
 * local process would: every request goes both to the gate (door, then Hono) and to a server of the
 * same app without the door (Hono alone, as the gate served the relay before the door), and the
 * two answers must be the same bytes but for the Date. The door must also take the bridge's calls
 * (they never reach the app's relay route), leave every refusal to the route, and stay out of the
 * way of a slow or abandoned body.
 */

import { connect, type Socket } from "node:net";
import { IDLE_KEEP_ALIVE_MS } from "@t3-connector/core/http-edge";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { announcedIdleMs } from "@t3-connector/test-support/keep-alive-hint";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { MAX_RELAY_BODY_BYTES, RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateHumanSide } from "../../src/process/human-side.js";
import type { RelayHandler } from "../../src/process/index.js";
import { type ListeningGateServer, listenGateServer } from "./support/gate-server.js";

let harness: GateHarness;
let honoAlone: ListeningGateServer;
let capability: string;
/** Calls that reached the app's relay route (the door's refusals go there; its takes never do). */
let routeCalls = 0;

beforeAll(async () => {
  let app: Hono | undefined;
  harness = await startGateHarness({
    humanSide: async (parts) => {
      const counted: RelayHandler = (c, readBody) => {
        routeCalls += 1;
        return parts.relay(c, readBody);
      };
      const side = await gateHumanSide({ ...parts, relay: counted });
      app = side.app;
      return side;
    },
  });
  capability = await harness.capability();
  if (app === undefined) throw new Error("the human side was not built");
  honoAlone = await listenGateServer(app, undefined);
});

afterAll(async () => {
  await honoAlone.close();
  await harness.close();
});

const gatePort = () => harness.gate.port;

/** Writes `bytes` on a fresh connection to `port` and resolves with all the server sent until it closed. */
function exchange(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A server that answers and closes before reading all it was sent resets the connection: what
    // it answered before that is what the test compares.
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.write(bytes);
  });
}

/** The answer without its Date header, the one part two servers answering alike may differ in. */
const undated = (answer: string) => answer.replace(/^Date: [^\r]*\r\n/im, "");

/** The same bytes to the gate and to Hono alone; both answers, undated. */
async function both(bytes: string | Buffer): Promise<{ gate: string; hono: string }> {
  const gate = undated(await exchange(gatePort(), bytes));
  const hono = undated(await exchange(honoAlone.port, bytes));
  return { gate, hono };
}

/** Reads whole answers (head and a Content-Length body) off one kept-alive socket, in order. */
function answersOn(socket: Socket): () => Promise<string> {
  let buffered = "";
  const waiting: Array<() => void> = [];
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    for (const wake of waiting.splice(0)) wake();
  });
  return async () => {
    for (;;) {
      const end = buffered.indexOf("\r\n\r\n");
      const length = /^content-length:\s*(\d+)/im.exec(buffered.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && buffered.length >= end + 4 + Number(length)) {
        const answer = buffered.slice(0, end + 4 + Number(length));
        buffered = buffered.slice(answer.length);
        return answer;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
}

interface Wire {
  method?: string;
  path?: string;
  /** Header lines as sent, in order (a name may repeat). */
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  /** Leave the connection open after the answer (default: `Connection: close`). */
  keepAlive?: boolean;
}

const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];
const host = (): [string, string] => ["Host", `localhost:${gatePort()}`];
const cap = (value = capability): [string, string] => [RELAY_HEADER, value];

/** A relay request as bytes: by default what the bridge sends, with `Connection: close`. */
function wire(options: Wire = {}): Buffer {
  const body = Buffer.from(options.body ?? JSON.stringify({ op: "environments" }));
  const headers = options.headers ?? [host(), JSON_TYPE, cap()];
  const lines = [
    `${options.method ?? "POST"} ${options.path ?? "/relay"} HTTP/1.1`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    ...(headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))
      ? []
      : [`Content-Length: ${body.byteLength}`]),
    ...(options.keepAlive === true ? [] : ["Connection: close"]),
  ];
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

const statusOf = (answer: string) => Number(answer.slice(9, 12));
const bodyOf = (answer: string) => answer.slice(answer.indexOf("\r\n\r\n") + 4);

describe("the relay's door", () => {
  it("answers the bridge's call itself, with the headers and body Hono answered with", async () => {
    const before = routeCalls;
    const { gate, hono } = await both(wire());
    expect(statusOf(gate)).toBe(200);
    expect(JSON.parse(bodyOf(gate))).toMatchObject({ environments: [{ alias: "alpha" }, { alias: "beta" }] });
    expect(gate).toBe(hono);
    // Hono alone went through the route once; the gate's door took its call before Hono.
    expect(routeCalls - before).toBe(1);
  });

  it("takes a write, which reaches T3 once and is audited", async () => {
    const leaseId = await harness.grantLease();
    const write = {
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-door-write",
      action: "thread.pin",
      input: { threadId: IDLE_THREAD },
    };
    const before = routeCalls;
    const answer = await harness.relay(write);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ state: "completed", operationId: "op-door-write" });
    expect(routeCalls).toBe(before);
    expect(harness.world.env("alpha").model.receivedCommands).toHaveLength(1);
    await harness.gate.audit.settled();
    expect(harness.gate.audit.anchor().lines).toBeGreaterThan(0);
  });

  it.each<[string, () => Wire]>([
    ["no capability", () => ({ headers: [host(), JSON_TYPE] })],
    [
      "a forged capability of the right length",
      () => ({ headers: [host(), JSON_TYPE, cap("A".repeat(43))] }),
    ],
    ["a capability one character short", () => ({ headers: [host(), JSON_TYPE, cap(capability.slice(1))] })],
    ["this boot's capability sent twice", () => ({ headers: [host(), JSON_TYPE, cap(), cap()] })],
    ["an empty capability", () => ({ headers: [host(), JSON_TYPE, cap("")] })],
  ])("leaves %s to the route, which refuses it (401) as before", async (_name, request) => {
    const before = routeCalls;
    const { gate, hono } = await both(wire(request()));
    expect(statusOf(gate)).toBe(401);
    expect(JSON.parse(bodyOf(gate))).toEqual({ error: "channel_unverified" });
    expect(gate).toBe(hono);
    expect(routeCalls - before).toBe(2);
  });

  it.each<[string, () => Wire, number]>([
    ["a GET", () => ({ method: "GET", body: "" }), 403],
    ["a PUT", () => ({ method: "PUT" }), 403],
    ["a DELETE", () => ({ method: "DELETE" }), 403],
    ["a HEAD", () => ({ method: "HEAD", body: "" }), 403],
    ["text/plain", () => ({ headers: [host(), ["Content-Type", "text/plain"], cap()] }), 403],
    ["no Content-Type", () => ({ headers: [host(), cap()] }), 403],
    [
      "JSON in another charset",
      () => ({ headers: [host(), ["Content-Type", "application/json; charset=latin1"], cap()] }),
      403,
    ],
    ["Content-Type sent twice", () => ({ headers: [host(), JSON_TYPE, JSON_TYPE, cap()] }), 403],
    [
      "a browser's Origin",
      () => ({ headers: [host(), JSON_TYPE, cap(), ["Origin", `http://localhost:${gatePort()}`]] }),
      403,
    ],
    ["Origin: null", () => ({ headers: [host(), JSON_TYPE, cap(), ["Origin", "null"]] }), 403],
    ["a rebound Host", () => ({ headers: [["Host", `evil.example:${gatePort()}`], JSON_TYPE, cap()] }), 403],
    [
      "the IP literal as Host",
      () => ({ headers: [["Host", `127.0.0.1:${gatePort()}`], JSON_TYPE, cap()] }),
      403,
    ],
  ])("leaves %s to the route's checks, which answer as before", async (_name, request, status) => {
    const before = routeCalls;
    const { gate, hono } = await both(wire(request()));
    expect(statusOf(gate)).toBe(status);
    expect(gate).toBe(hono);
    // Refused before the relay's handler: neither server reached it.
    expect(routeCalls).toBe(before);
  });

  it("leaves a body declared past the cap to the route, which refuses it unread (413) as before", async () => {
    const before = routeCalls;
    const { gate, hono } = await both(
      wire({
        headers: [host(), JSON_TYPE, cap(), ["Content-Length", String(MAX_RELAY_BODY_BYTES + 1)]],
        body: "",
      }),
    );
    expect(statusOf(gate)).toBe(413);
    expect(JSON.parse(bodyOf(gate))).toEqual({ error: "body_too_large" });
    expect(gate).toBe(hono);
    expect(routeCalls - before).toBe(2);
  });

  it("leaves a chunked body to the route, which counts it and refuses it past the cap (413) as before", async () => {
    const chunk = "x".repeat(64 * 1024);
    const chunked = `${[1, 2, 3].map(() => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join("")}0\r\n\r\n`;
    const { gate, hono } = await both(
      wire({ headers: [host(), JSON_TYPE, cap(), ["Transfer-Encoding", "chunked"]], body: chunked }),
    );
    expect(statusOf(gate)).toBe(413);
    expect(gate).toBe(hono);
  });

  it.each<[string, string | Buffer, number, Record<string, unknown>]>([
    ["garbage", "{not json", 400, { error: "body_invalid" }],
    ["bytes that are not UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 400, { error: "body_invalid" }],
    ["an empty body", "", 400, { error: "invalid_request" }],
    ["a JSON array", "[]", 400, { error: "invalid_request" }],
    ["an unknown op", JSON.stringify({ op: "format_disk" }), 400, { error: "action_unavailable" }],
    [
      "a write missing its fields",
      JSON.stringify({ op: "dispatch", action: "thread.pin" }),
      400,
      { error: "invalid_request" },
    ],
    [
      "a body nested past the depth limit",
      `${"[".repeat(200)}${"]".repeat(200)}`,
      400,
      { error: "invalid_input" },
    ],
  ])("takes %s past the checks and answers as the route did", async (_name, body, status, error) => {
    const before = routeCalls;
    const { gate, hono } = await both(wire({ body }));
    expect(statusOf(gate)).toBe(status);
    expect(JSON.parse(bodyOf(gate))).toMatchObject(error);
    expect(gate).toBe(hono);
    // Only Hono alone went through the route.
    expect(routeCalls - before).toBe(1);
  });

  it.each<[string, string]>([
    ["a query", "/relay?op=lease"],
    ["a trailing slash", "/relay/"],
    ["another case", "/RELAY"],
    ["an absolute URL", `http://localhost:0/relay`],
  ])("leaves a path with %s to Hono, which answers as before", async (_name, path) => {
    const { gate, hono } = await both(wire({ path }));
    expect(gate).toBe(hono);
  });

  it("keeps the connection open for the bridge's next call, announcing the gate's idle timeout", async () => {
    const socket = connect(gatePort(), "127.0.0.1");
    const next = answersOn(socket);
    try {
      const before = routeCalls;
      socket.write(wire({ keepAlive: true }));
      const first = await next();
      expect(statusOf(first)).toBe(200);
      expect(announcedIdleMs(first)).toBe(IDLE_KEEP_ALIVE_MS);
      socket.write(wire({ keepAlive: true, headers: [host(), JSON_TYPE] }));
      expect(statusOf(await next())).toBe(401);
      socket.write(wire({ keepAlive: true }));
      expect(JSON.parse(bodyOf(await next()))).toMatchObject({
        environments: [{ alias: "alpha" }, { alias: "beta" }],
      });
      // Only the refusal went through the route.
      expect(routeCalls - before).toBe(1);
    } finally {
      socket.destroy();
    }
  });

  it("waits for a slow body without holding up other calls, then answers it", async () => {
    const request = wire();
    const cut = request.byteLength - 5;
    const socket = connect(gatePort(), "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.write(request.subarray(0, cut), () => resolve()));
    // Another client's call is answered while the slow one's body is still on its way.
    const other = await harness.relay({ op: "lease" });
    expect(other.status).toBe(200);
    expect(received).toEqual([]);
    socket.write(request.subarray(cut));
    await closed;
    const answer = Buffer.concat(received).toString("utf8");
    expect(statusOf(answer)).toBe(200);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({
      environments: [{ alias: "alpha" }, { alias: "beta" }],
    });
  });

  it("sends nothing for a write whose body never finishes, and keeps serving", async () => {
    const leaseId = await harness.grantLease();
    const sent = harness.world.env("alpha").model.receivedCommands.length;
    const body = JSON.stringify({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-door-abandoned",
      action: "thread.pin",
      input: { threadId: IDLE_THREAD },
    });
    const request = wire({ body });
    const socket = connect(gatePort(), "127.0.0.1");
    await new Promise<void>((resolve) =>
      socket.write(request.subarray(0, request.byteLength - 10), () => resolve()),
    );
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.destroy();
    await closed;
    const after = await harness.relay({ op: "lease" });
    expect(after.status).toBe(200);
    expect(harness.world.env("alpha").model.receivedCommands).toHaveLength(sent);
  });
});
