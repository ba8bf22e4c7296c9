import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useDemoAlpha } from "./demo-alpha.js";
import { type RawRpcClient, refusedUpgrade, type TestEnv, wsUrl } from "./helpers.js";

let env: TestEnv;
const alpha = useDemoAlpha((started) => {
  env = started;
});
const connect = (token = env.readToken): Promise<RawRpcClient> => alpha.connect(token);

const shell = (token = env.readToken, signal?: AbortSignal) =>
  fetch(`${env.url}/api/orchestration/shell`, {
    headers: { authorization: `Bearer ${token}`, "x-t3-orchestration-protocol": "2" },
    ...(signal ? { signal } : {}),
  });

/** Resolves once the hang fault has swallowed `count` things. */
function heldTimes(count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const stop = env.faults.onHeld(() => {
      if (++seen < count) return;
      stop();
      resolve();
    });
  });
}

async function firstThreadId(): Promise<string> {
  const id = ((await (await shell()).json()) as { threads: { id: string }[] }).threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

describe("faults", () => {
  it("latencyMs delays HTTP answers and WebSocket frames by at least that long", async () => {
    const client = await connect();
    env.faults.set({ latencyMs: 150 });
    let started = performance.now();
    expect((await shell()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    started = performance.now();
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it("hang leaves HTTP requests unanswered while later requests are answered once it is lifted", async () => {
    env.faults.set({ hang: true });
    const held = heldTimes(1);
    const abort = new AbortController();
    let settled = false;
    const hung = shell(env.readToken, abort.signal).then(
      () => (settled = true),
      () => undefined,
    );
    await held;
    env.faults.set({ hang: false });
    expect((await shell()).status).toBe(200);
    expect(settled).toBe(false);
    abort.abort();
    await hung;
  });

  it("hang makes a socket read frames without answering them", async () => {
    const client = await connect();
    env.faults.set({ hang: true });
    const held = heldTimes(2);
    client.send({ _tag: "Ping" });
    client.request("1", "server.probe");
    await held;
    env.faults.clear();
    // The next answer on this socket is for request 2: the Ping and request 1 were swallowed.
    client.request("2", "server.probe");
    expect(await client.nextFrame()).toMatchObject({ _tag: "Exit", requestId: "2" });
  });

  it("hang holds a WebSocket upgrade without answering it", async () => {
    env.faults.set({ hang: true });
    const held = heldTimes(1);
    const socket = new WebSocket(wsUrl(env.url, { orchestrationProtocol: "2" }), {
      headers: { authorization: `Bearer ${env.readToken}` },
    });
    let answered = false;
    socket.once("open", () => (answered = true));
    socket.once("unexpected-response", () => (answered = true));
    socket.once("error", () => {});
    await held;
    env.faults.clear();
    expect((await shell()).status).toBe(200);
    expect(answered).toBe(false);
    socket.terminate();
  });

  it("httpStatus makes orchestration reads and the session probe answer that status with T3's 500 body", async () => {
    env.faults.set({ httpStatus: 503 });
    const read = await shell();
    expect(read.status).toBe(503);
    expect(await read.json()).toMatchObject({
      _tag: "EnvironmentInternalError",
      code: "internal_error",
      reason: "orchestration_snapshot_failed",
    });
    const session = await fetch(`${env.url}/api/auth/session`);
    expect(session.status).toBe(503);
    expect(await session.json()).toMatchObject({ _tag: "EnvironmentInternalError" });
    expect((await fetch(`${env.url}/.well-known/t3/environment`)).status).toBe(200);
  });

  it("wrongEnvironmentId changes the descriptor and server.getConfig", async () => {
    env.faults.set({ wrongEnvironmentId: "env-somewhere-else" });
    const descriptor = (await (await fetch(`${env.url}/.well-known/t3/environment`)).json()) as Record<
      string,
      unknown
    >;
    expect(descriptor.environmentId).toBe("env-somewhere-else");
    const client = await connect();
    const exit = await client.call("1", "server.getConfig");
    expect(
      (exit.exit as { value: { environment: { environmentId: string } } }).value.environment.environmentId,
    ).toBe("env-somewhere-else");
    client.request("2", "subscribeServerConfig", {});
    const chunk = await client.next((f) => f._tag === "Chunk" && f.requestId === "2");
    const snapshot = (
      chunk.values as { type: string; config: { environment: { environmentId: string } } }[]
    )[0];
    expect(snapshot?.type).toBe("snapshot");
    expect(snapshot?.config.environment.environmentId).toBe("env-somewhere-else");
    env.faults.set({ wrongEnvironmentId: undefined });
    expect(
      ((await (await fetch(`${env.url}/.well-known/t3/environment`)).json()) as { environmentId: string })
        .environmentId,
    ).toBe(env.environmentId);
  });

  it("expireTokens refuses every token and ticket, and open sockets lose their scopes", async () => {
    const client = await connect();
    env.faults.set({ expireTokens: true });
    const read = await shell();
    expect(read.status).toBe(401);
    expect(await read.json()).toMatchObject({ reason: "invalid_credential" });
    const session = (await (
      await fetch(`${env.url}/api/auth/session`, { headers: { authorization: `Bearer ${env.adminToken}` } })
    ).json()) as { authenticated: boolean };
    expect(session.authenticated).toBe(false);
    const upgrade = await refusedUpgrade(wsUrl(env.url, { orchestrationProtocol: "2" }), {
      authorization: `Bearer ${env.readToken}`,
    });
    expect(upgrade.status).toBe(401);
    expect((await client.call("1", "server.probe")).exit).toMatchObject({
      _tag: "Failure",
      cause: [{ _tag: "Fail", error: { _tag: "EnvironmentAuthorizationError" } }],
    });
    env.faults.clear();
    expect((await shell()).status).toBe(200);
  });

  it("extraScopes widens the session probe and RPC scope checks", async () => {
    env.faults.set({ extraScopes: ["orchestration:operate"] });
    const session = (await (
      await fetch(`${env.url}/api/auth/session`, { headers: { authorization: `Bearer ${env.readToken}` } })
    ).json()) as { scopes: string[] };
    expect(session.scopes).toEqual(["orchestration:read", "orchestration:operate"]);
    const client = await connect();
    const command = {
      type: "thread.metadata.update",
      commandId: randomUUID(),
      threadId: await firstThreadId(),
      title: "renamed by a widened token",
    };
    expect((await client.call("1", "orchestration.dispatchCommand", command)).exit).toMatchObject({
      _tag: "Success",
    });
  });

  it("dropSocketAfterDispatch applies the next command, then destroys the socket before its Exit", async () => {
    const client = await connect(env.operateToken);
    env.faults.set({ dropSocketAfterDispatch: true });
    const commandId = randomUUID();
    client.request("1", "orchestration.dispatchCommand", {
      type: "thread.pin",
      commandId,
      threadId: await firstThreadId(),
    });
    await client.closed;
    expect(client.frames).toEqual([]);
    expect(env.model.receivedCommands.map((c) => c.commandId)).toContain(commandId);
    expect(env.faults.current.dropSocketAfterDispatch).toBeUndefined();
  });

  it("nonJsonOrchestration answers orchestration reads with the SPA page or the 503 text", async () => {
    env.faults.set({ nonJsonOrchestration: "html" });
    const html = await shell();
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await html.text()).toMatch(/^<!doctype html>/);
    env.faults.set({ nonJsonOrchestration: "text" });
    const text = await shell();
    expect(text.status).toBe(503);
    expect(text.headers.get("content-type")).toBe("text/plain");
    expect(await text.text()).toBe("No static directory configured and no dev URL set.");
  });

  it("dropSockets destroys every open socket of the environment", async () => {
    const a = await connect();
    const b = await connect(env.operateToken);
    env.dropSockets();
    await Promise.all([a.closed, b.closed]);
    expect((await shell()).status).toBe(200);
  });
});
