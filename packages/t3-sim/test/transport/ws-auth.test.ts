import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mintTicket,
  RawRpcClient,
  refusedUpgrade,
  startSim,
  type TestEnv,
  type TestSim,
  wsUrl,
} from "./helpers.js";

let sim: TestSim;
let env: TestEnv;
let legacy: TestEnv;

beforeAll(async () => {
  sim = await startSim({
    environments: [{ alias: "alpha" }, { alias: "legacy", transitional: true }],
    clock: "manual",
  });
  env = sim.environment("alpha");
  legacy = sim.environment("legacy");
});
afterAll(async () => {
  await sim.close();
});

describe("/ws upgrade", () => {
  it("refuses an upgrade with neither ticket nor bearer with a plain 401 JSON", async () => {
    const answer = await refusedUpgrade(wsUrl(env.url, { orchestrationProtocol: "2" }));
    expect(answer.status).toBe(401);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["access-control-allow-origin"]).toBe("*");
    expect(JSON.parse(answer.body)).toMatchObject({
      _tag: "EnvironmentAuthInvalidError",
      code: "auth_invalid",
      reason: "missing_credential",
    });
  });

  it("refuses an unknown ticket with 401 invalid_credential", async () => {
    const answer = await refusedUpgrade(
      wsUrl(env.url, { orchestrationProtocol: "2", wsTicket: "bogus-ticket" }),
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ reason: "invalid_credential" });
  });

  it("accepts the same ticket twice within its lifetime and refuses it after five minutes", async () => {
    const ticket = await mintTicket(env.url, env.readToken);
    const url = wsUrl(env.url, { orchestrationProtocol: "2", wsTicket: ticket });
    const first = await RawRpcClient.open(url);
    const second = await RawRpcClient.open(url);
    await Promise.all([first.close(), second.close()]);
    env.clock.advance(5 * 60 * 1000);
    expect((await refusedUpgrade(url)).status).toBe(401);
  });

  it("accepts an Authorization: Bearer header instead of a ticket", async () => {
    const client = await RawRpcClient.open(wsUrl(env.url, { orchestrationProtocol: "2" }), {
      authorization: `Bearer ${env.adminToken}`,
    });
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
    expect(await client.call("1", "server.probe")).toEqual({
      _tag: "Exit",
      requestId: "1",
      exit: { _tag: "Success", value: {} },
    });
    await client.close();
  });

  it("answers 426 on a protocol-2 server without orchestrationProtocol=2, before spending auth", async () => {
    for (const query of [{}, { orchestrationProtocol: "1" }] as Record<string, string>[]) {
      const answer = await refusedUpgrade(wsUrl(env.url, { ...query, wsTicket: "bogus" }));
      expect(answer.status).toBe(426);
      expect(JSON.parse(answer.body)).toEqual({
        code: "orchestration_protocol_incompatible",
        message: "Update this client to one that supports orchestration protocol 2.",
        orchestrationProtocolVersion: 2,
      });
    }
  });

  it("ignores orchestrationProtocol on a transitional server", async () => {
    for (const query of [{}, { orchestrationProtocol: "2" }, { orchestrationProtocol: "7" }] as Record<
      string,
      string
    >[]) {
      const ticket = await mintTicket(legacy.url, legacy.readToken);
      const client = await RawRpcClient.open(wsUrl(legacy.url, { ...query, wsTicket: ticket }));
      const exit = await client.call("1", "server.getConfig");
      expect(exit.exit).toMatchObject({ _tag: "Success" });
      await client.close();
    }
  });
});

describe("per-RPC scopes", () => {
  it("fails dispatchCommand and launchThread on a read-only socket with EnvironmentAuthorizationError", async () => {
    const client = await RawRpcClient.connect(env.url, env.readToken);
    for (const [id, tag] of [
      ["1", "orchestration.dispatchCommand"],
      ["2", "orchestration.launchThread"],
    ] as const) {
      expect(await client.call(id, tag, { type: "thread.settle", commandId: "c", threadId: "t" })).toEqual({
        _tag: "Exit",
        requestId: id,
        exit: {
          _tag: "Failure",
          cause: [
            {
              _tag: "Fail",
              error: {
                _tag: "EnvironmentAuthorizationError",
                message: "The authenticated token is missing required scope: orchestration:operate.",
                requiredScope: "orchestration:operate",
              },
            },
          ],
        },
      });
    }
    await client.close();
  });

  it("fails reads for a token without orchestration:read", async () => {
    const client = await RawRpcClient.connect(env.url, env.issueToken({ scopes: ["relay:read"] }));
    const exit = await client.call("1", "server.getConfig");
    expect(exit.exit).toMatchObject({
      _tag: "Failure",
      cause: [
        {
          _tag: "Fail",
          error: { _tag: "EnvironmentAuthorizationError", requiredScope: "orchestration:read" },
        },
      ],
    });
    await client.close();
  });

  it("checks streams too: subscribeShell needs orchestration:read", async () => {
    const client = await RawRpcClient.connect(env.url, env.issueToken({ scopes: ["relay:read"] }));
    const exit = await client.call("1", "orchestration.subscribeShell", {});
    expect(exit.exit).toMatchObject({
      _tag: "Failure",
      cause: [
        {
          _tag: "Fail",
          error: { _tag: "EnvironmentAuthorizationError", requiredScope: "orchestration:read" },
        },
      ],
    });
    await client.close();
  });

  it("does not accept another environment's token or ticket", async () => {
    const ticket = await mintTicket(legacy.url, legacy.readToken);
    expect(
      (await refusedUpgrade(wsUrl(env.url, { orchestrationProtocol: "2", wsTicket: ticket }))).status,
    ).toBe(401);
    const answer = await refusedUpgrade(wsUrl(env.url, { orchestrationProtocol: "2" }), {
      authorization: `Bearer ${legacy.readToken}`,
    });
    expect(JSON.parse(answer.body)).toMatchObject({ reason: "invalid_credential" });
  });

  it("refuses a ticket whose minting token has expired", async () => {
    const token = env.issueToken({ scopes: ["orchestration:read"], ttlMs: 1000 });
    const ticket = await mintTicket(env.url, token);
    env.clock.advance(1000);
    expect(
      (await refusedUpgrade(wsUrl(env.url, { orchestrationProtocol: "2", wsTicket: ticket }))).status,
    ).toBe(401);
  });

  it("checks every RPC against the session as it is now: an expired token loses its scopes", async () => {
    const token = env.issueToken({ scopes: ["orchestration:read"], ttlMs: 10 * 60 * 1000 });
    const client = await RawRpcClient.connect(env.url, token);
    expect((await client.call("1", "server.probe")).exit).toMatchObject({ _tag: "Success" });
    env.clock.advance(10 * 60 * 1000);
    expect((await client.call("2", "server.probe")).exit).toMatchObject({
      _tag: "Failure",
      cause: [{ _tag: "Fail", error: { requiredScope: "orchestration:read" } }],
    });
    await client.close();
  });
});
