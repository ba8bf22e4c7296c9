/**
 * `GET /api/events` over a real socket: a real HTTP client reads the nudges the
 * approval desk, the lease keeper and the relay's write rows publish, and another site cannot
 * open the stream.
 */

import { type EventStreamClient, openEventStream } from "@t3-connector/test-support/event-stream-client";
import { postJson, rawRequest } from "@t3-connector/test-support/gate-http";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_EVENT_STREAMS, MAX_STREAMS_PER_PAGE } from "../../src/app/event-stream.js";
import { REQUEST_TTL_MS } from "../../src/approval/index.js";

let gate: SimGate | undefined;
const streams: EventStreamClient[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await gate?.close();
  gate = undefined;
});

async function startGate(): Promise<SimGate> {
  gate = await startSimGate({
    serve: true,
    environments: [
      {
        alias: "alpha",
        projects: [{ id: "p-one", title: "One", workspaceRoot: "/srv/one" }],
        threads: [{ id: "thread-one", projectId: "p-one", title: "First thread" }],
      },
    ],
  });
  return gate;
}

async function stream(
  g: SimGate,
  headers: Record<string, string> = {},
  page = `page-${streams.length}-${"x".repeat(8)}`,
): Promise<EventStreamClient> {
  const opened = await openEventStream(g.port, headers, `/api/events?page=${page}`);
  streams.push(opened);
  return opened;
}

describe("GET /api/events", () => {
  it("streams request, decision, lease and write events to a real HTTP client", async () => {
    const g = await startGate();
    const events = await stream(g, { "sec-fetch-site": "same-origin", origin: g.origin });
    expect(events.status).toBe(200);
    expect(events.contentType).toMatch(/^text\/event-stream/);
    // Hono's streamSSE carries it; the gate's own headers still hold (no caching, no proxy buffering).
    expect(events.headers["cache-control"]).toBe("no-store");
    expect(events.headers["x-accel-buffering"]).toBe("no");
    expect(events.headers["x-frame-options"]).toBe("DENY");

    const first = await g.desk.request({});
    expect((await events.next("request")).data).toEqual({ requestId: first.requestId });
    const denied = await postJson(
      g.port,
      "/api/requests/deny",
      { requestId: first.requestId },
      { origin: g.origin },
    );
    expect(denied.status).toBe(200);
    expect((await events.next("decision")).data).toEqual({ requestId: first.requestId, outcome: "denied" });

    const second = await g.desk.request({});
    await events.next("request");
    g.clock.offsetMs += REQUEST_TTL_MS;
    expect(g.desk.pendingCount).toBe(0);
    expect((await events.next("decision")).data).toEqual({ requestId: second.requestId, outcome: "expired" });

    g.clock.offsetMs = 0;
    const third = await g.desk.request({});
    const { scope, scopeFingerprint } = g.desk.view(third.requestId);
    const lease = g.keeper.grant({ scope, scopeFingerprint, credentialId: "cred" });
    expect((await events.next("lease")).data).toEqual({ leaseId: lease.leaseId, state: "open" });
    g.keeper.recordWrite({
      leaseId: g.keeper.list()[0]?.leaseId ?? "",
      at: new Date(g.clock.now()).toISOString(),
      environmentId: g.sim.environment("alpha").environmentId,
      action: "thread.pin",
      operationId: "op-live",
      threadId: "thread-one",
      state: "completed",
    });
    expect((await events.next("write")).data).toEqual({
      row: expect.objectContaining({
        environmentAlias: "alpha",
        threadTitle: "First thread",
        actionLabel: "Pin a thread",
        outcome: "completed",
        operationId: "op-live",
      }),
    });
    g.keeper.closeAll("revoked");
    expect((await events.next("lease")).data).toEqual({ leaseId: lease.leaseId, state: "closed" });
    expect(events.comments).toContain("connected");
  });

  it("keeps the stream alive with a ping comment", async () => {
    gate = await startSimGate({
      serve: true,
      eventPingIntervalMs: 20,
      environments: [
        { alias: "alpha", projects: [{ id: "p-one", title: "One", workspaceRoot: "/srv/one" }] },
      ],
    });
    const events = await stream(gate);
    await events.nextComment("ping");
    expect(events.comments[0]).toBe("connected");
  });

  it("refuses another site, another origin and a rebound Host; a top-level open (none) is served", async () => {
    const g = await startGate();
    const get = (headers: Record<string, string>) =>
      rawRequest({
        port: g.port,
        method: "GET",
        path: "/api/events",
        headers: { host: `localhost:${g.port}`, ...headers },
      });
    expect((await get({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await get({ "sec-fetch-site": "same-site" })).status).toBe(403);
    expect(await get({ origin: "http://evil.example" })).toMatchObject({
      status: 403,
      body: { error: "origin_or_method_invalid" },
    });
    expect((await get({ origin: `http://127.0.0.1:${g.port}` })).status).toBe(403);
    expect(
      (
        await rawRequest({
          port: g.port,
          method: "GET",
          path: "/api/events",
          headers: { host: `127.0.0.1:${g.port}` },
        })
      ).status,
    ).toBe(403);
    const direct = await stream(g, { "sec-fetch-site": "none" });
    expect(direct.status).toBe(200);
  });

  it("serves each page at most 2 streams, naming the limit, while another page still gets its own", async () => {
    const g = await startGate();
    const first = await stream(g, {}, "page-one-aaaaaaaa");
    await stream(g, {}, "page-one-aaaaaaaa");
    const third = await rawRequest({
      port: g.port,
      method: "GET",
      path: "/api/events?page=page-one-aaaaaaaa",
      headers: { host: `localhost:${g.port}` },
    });
    expect(third).toMatchObject({
      status: 429,
      body: { error: "client_budget_exceeded", limit: MAX_STREAMS_PER_PAGE },
    });
    expect((await stream(g, {}, "page-two-bbbbbbbb")).status).toBe(200);
    // A closed stream frees its page's slot.
    const departed = g.events.nextDeparture();
    first.close();
    await departed;
    expect((await stream(g, {}, "page-one-aaaaaaaa")).status).toBe(200);
  });

  it("serves at most 32 streams in all and frees a slot when a page goes away", async () => {
    const g = await startGate();
    const open: EventStreamClient[] = [];
    for (let index = 0; index < MAX_EVENT_STREAMS; index += 1) open.push(await stream(g));
    expect(open.every((client) => client.status === 200)).toBe(true);
    const oneMore = await rawRequest({
      port: g.port,
      method: "GET",
      path: "/api/events?page=one-more-page",
      headers: { host: `localhost:${g.port}` },
    });
    expect(oneMore).toMatchObject({ status: 429, body: { error: "too_many_streams" } });
    // A closed page's stream is cancelled by the server, which frees its slot.
    const departed = g.events.nextDeparture();
    open[0]?.close();
    await departed;
    expect((await stream(g)).status).toBe(200);
  });
});
