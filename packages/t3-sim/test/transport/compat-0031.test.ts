/**
 * The 0.0.31 profile over real sockets (fixtures 01, 33b,
 * 47, 49, 61), next to a protocol-2 environment in the same simulator.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ABSENT_COMMAND_TYPES_0031,
  ACCEPTED_COMMAND_TYPES_0031,
  UNKNOWN_COMMAND_DEFECT_0031,
} from "../../src/index.js";
import { fixture, fixtureExit } from "../model/helpers.js";
import { RawRpcClient, startSim, type TestEnv, type TestSim } from "./helpers.js";

let sim: TestSim;
let current: TestEnv;
let installed: TestEnv;
let fromSource: TestEnv;
let transitional: TestEnv;

beforeAll(async () => {
  sim = await startSim({
    environments: [
      { alias: "alpha" },
      { alias: "beta", compat: "0.0.31" },
      { alias: "gamma", compat: "0.0.31", webBuild: false },
      { alias: "delta", transitional: true },
    ],
  });
  current = sim.environment("alpha");
  installed = sim.environment("beta");
  fromSource = sim.environment("gamma");
  transitional = sim.environment("delta");
});
afterAll(async () => {
  await sim.close();
});

const get = (env: TestEnv, path: string) =>
  fetch(`${env.url}${path}`, {
    headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
  });

async function firstThreadId(env: TestEnv): Promise<string> {
  const shell = (await (await get(env, "/api/orchestration/shell")).json()) as { threads: { id: string }[] };
  const id = shell.threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

/** Routes protocol 2 added that 0.0.31's HTTP API lacks, plus GETs no T3 routes. */
async function missingRoutes(env: TestEnv): Promise<string[]> {
  const threadId = await firstThreadId(env);
  return [
    `/api/orchestration/threads/${threadId}/bounded`,
    `/api/orchestration/threads/${threadId}/history`,
    `/api/orchestration/threads/${threadId}/history?cursor=abc`,
    "/api/orchestration/snapshot",
    `/api/orchestration/threads/${threadId}/items`,
    "/api/not-a-route",
    "/",
  ];
}

describe("0.0.31 descriptor", () => {
  it("has no orchestrationProtocolVersion and reports server version 0.0.31, beside a protocol-2 one", async () => {
    const old = (await (await fetch(`${installed.url}/.well-known/t3/environment`)).json()) as Record<
      string,
      unknown
    >;
    expect(old).not.toHaveProperty("orchestrationProtocolVersion");
    expect(old.serverVersion).toBe("0.0.31");
    expect(Object.keys(old).sort()).toEqual(
      Object.keys(fixture("01-http-descriptor.json").response.body as object).sort(),
    );
    const fresh = (await (await fetch(`${current.url}/.well-known/t3/environment`)).json()) as Record<
      string,
      unknown
    >;
    expect(fresh.orchestrationProtocolVersion).toBe(2);
    expect([current.profile, installed.profile, fromSource.profile]).toEqual([
      "protocol-2",
      "0.0.31",
      "0.0.31",
    ]);
    expect(installed.serverVersion).toBe("0.0.31");
    expect(current.serverVersion).not.toBe("0.0.31");
  });
});

describe("0.0.31 routes it lacks answer the SPA fallback, never a 404 or JSON", () => {
  it("an installed 0.0.31 answers 200 text/html with the web app's index.html", async () => {
    for (const path of await missingRoutes(installed)) {
      const response = await get(installed, path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toBe("text/html; charset=utf-8");
      expect(await response.text(), path).toMatch(/^<!doctype html>/);
    }
  });

  it("a 0.0.31 run from source without a web build answers 503 text/plain", async () => {
    for (const path of await missingRoutes(fromSource)) {
      const response = await get(fromSource, path);
      expect(response.status, path).toBe(503);
      expect(response.headers.get("content-type"), path).toBe("text/plain");
      expect(await response.text(), path).toBe("No static directory configured and no dev URL set.");
    }
    // The captures were taken from such a server (fixtures 47 and 49).
    const captured = fixture("49-http-thread-items-endpoint.json").response;
    expect(captured.status).toBe(503);
    expect(captured.body).toBe("No static directory configured and no dev URL set.");
  });

  it("the shell and the full thread snapshot still answer JSON on 0.0.31", async () => {
    const threadId = await firstThreadId(installed);
    for (const path of ["/api/orchestration/shell", `/api/orchestration/threads/${threadId}`]) {
      const response = await get(installed, path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toBe("application/json");
    }
  });

  it("the protocol-2 environment of the same simulator still serves the bounded snapshot", async () => {
    const threadId = await firstThreadId(current);
    const response = await get(current, `/api/orchestration/threads/${threadId}/bounded`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
  });
});

describe("0.0.31 dispatchCommand of a type it does not accept", () => {
  it("the defect is fixture 33b's, listing exactly the 37 accepted types in order", () => {
    expect(UNKNOWN_COMMAND_DEFECT_0031).toBe(
      fixtureExit("33b-ws-dispatch-unknown-command-type.json").cause[0].defect,
    );
    const listed = [...UNKNOWN_COMMAND_DEFECT_0031.matchAll(/readonly "type": "([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual(ACCEPTED_COMMAND_TYPES_0031);
    expect(listed).toHaveLength(37);
    for (const absent of ABSENT_COMMAND_TYPES_0031) expect(listed).not.toContain(absent);
  });

  it("answers one Exit Failure Die and applies nothing, for each absent type and an unknown one", async () => {
    const threadId = await firstThreadId(installed);
    const client = await RawRpcClient.connect(installed.url, installed.adminToken);
    try {
      const types = [...ABSENT_COMMAND_TYPES_0031, "thread.auto-settle", "thread.explode"];
      for (const [index, type] of types.entries()) {
        const sequenceBefore = installed.model.sequence;
        const eventsBefore = installed.model.getThread(threadId)?.events.length;
        const receivedBefore = installed.model.receivedCommands.length;
        const id = String(100 + index);
        const commandId = randomUUID();
        const exit = await client.call(id, "orchestration.dispatchCommand", {
          type,
          commandId,
          threadId,
          orderKey: "a0",
        });
        expect(exit, type).toEqual({
          _tag: "Exit",
          requestId: id,
          exit: { _tag: "Failure", cause: [{ _tag: "Die", defect: UNKNOWN_COMMAND_DEFECT_0031 }] },
        });
        expect(installed.model.sequence, type).toBe(sequenceBefore);
        expect(installed.model.getThread(threadId)?.events.length, type).toBe(eventsBefore);
        expect(installed.model.receivedCommands.length, type).toBe(receivedBefore);
        // No receipt was kept: the same commandId is free for an accepted command afterwards.
        const retry = await client.call(`${id}r`, "orchestration.dispatchCommand", {
          type: "thread.visit",
          commandId,
          threadId,
          visitedAt: new Date().toISOString(),
        });
        expect((retry.exit as { _tag: string })._tag, type).toBe("Success");
        expect(installed.model.sequence, type).toBeGreaterThan(sequenceBefore);
      }
      // Only the Exit frames of the calls above arrived: one frame per refused dispatch.
      expect(client.frames).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("a type 0.0.31 accepts is applied as usual", async () => {
    const threadId = await firstThreadId(installed);
    const client = await RawRpcClient.connect(installed.url, installed.adminToken);
    try {
      const exit = await client.call("1", "orchestration.dispatchCommand", {
        type: "thread.pin",
        commandId: randomUUID(),
        threadId,
      });
      expect((exit.exit as { _tag: string; value: { sequence: number } }).value.sequence).toBe(
        installed.model.sequence,
      );
    } finally {
      await client.close();
    }
  });

  it("the protocol-2 environment of the same simulator applies thread.pin.reorder", async () => {
    const threadId = await firstThreadId(current);
    const client = await RawRpcClient.connect(current.url, current.adminToken);
    try {
      const pin = { type: "thread.pin", commandId: randomUUID(), threadId };
      expect(
        ((await client.call("0", "orchestration.dispatchCommand", pin)).exit as { _tag: string })._tag,
      ).toBe("Success");
      const before = current.model.sequence;
      const exit = await client.call("1", "orchestration.dispatchCommand", {
        type: "thread.pin.reorder",
        commandId: randomUUID(),
        threadId,
        orderKey: "a0",
      });
      expect((exit.exit as { _tag: string })._tag).toBe("Success");
      expect(current.model.sequence).toBeGreaterThan(before);
    } finally {
      await client.close();
    }
  });
});

describe("0.0.31 RPC methods", () => {
  it("a method 0.0.31 lacks dies with Unknown request tag, even for a read-only token (fixture 61)", async () => {
    const client = await RawRpcClient.connect(installed.url, installed.readToken);
    try {
      for (const tag of ["orchestration.getTurnItem", "orchestration.doesNotExist"]) {
        const exit = await client.call(tag, tag, {});
        expect(exit.exit).toEqual({
          _tag: "Failure",
          cause: [{ _tag: "Die", defect: `Unknown request tag: ${tag}` }],
        });
      }
      const config = await client.call("c", "server.getConfig", {});
      expect((config.exit as { _tag: string })._tag).toBe("Success");
    } finally {
      await client.close();
    }
  });
});

describe("transitional without compat keeps its behaviour", () => {
  it("serves the bounded snapshot, accepts the newer commands and its unknown-type Die lists them", async () => {
    expect([transitional.profile, transitional.serverVersion, transitional.webBuild]).toEqual([
      "transitional",
      "0.0.31",
      false,
    ]);
    const threadId = await firstThreadId(transitional);
    const bounded = await get(transitional, `/api/orchestration/threads/${threadId}/bounded`);
    expect([bounded.status, bounded.headers.get("content-type")]).toEqual([200, "application/json"]);
    const unknown = await get(transitional, "/api/not-a-route");
    expect([unknown.status, await unknown.text()]).toEqual([
      503,
      "No static directory configured and no dev URL set.",
    ]);
    const client = await RawRpcClient.connect(transitional.url, transitional.adminToken);
    try {
      const exit = await client.call("1", "orchestration.dispatchCommand", {
        type: "thread.explode",
        commandId: randomUUID(),
        threadId,
      });
      const defect = (exit.exit as { cause: { defect: string }[] }).cause[0]?.defect ?? "";
      expect(defect).not.toBe(UNKNOWN_COMMAND_DEFECT_0031);
      expect(defect).toContain('"thread.pin.reorder"');
    } finally {
      await client.close();
    }
  });
});
