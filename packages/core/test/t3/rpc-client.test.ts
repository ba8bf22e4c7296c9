import { randomUUID } from "node:crypto";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { deferred, ItemLog, ManualTimers } from "@t3-connector/test-support/t3-fake-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectorError } from "../../src/errors.js";
import {
  nodeWebSocketFactory,
  type ShellStreamItem,
  T3HttpClient,
  T3RpcClient,
  type T3RpcConnectOptions,
  type ThreadStreamItem,
} from "../../src/t3/index.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";
import { useAlphaAndTransitional } from "./alpha-and-transitional.js";

let env: SimEnvironment;
let transitional: SimEnvironment;
const clients: T3RpcClient[] = [];

useAlphaAndTransitional((alpha, beta) => {
  env = alpha;
  transitional = beta;
});

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

async function connect(
  target: SimEnvironment,
  token: string,
  extra: Partial<T3RpcConnectOptions> = {},
): Promise<T3RpcClient> {
  const client = await T3RpcClient.connect({ baseUrl: target.url, token, ...extra });
  clients.push(client);
  return client;
}

async function firstThreadId(target: SimEnvironment): Promise<string> {
  const shell = await new T3HttpClient({ baseUrl: target.url, token: target.readToken }).getShell();
  const id = shell.threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

function rename(threadId: string, title: string) {
  return { type: "thread.metadata.update", commandId: randomUUID(), threadId, title };
}

describe("T3RpcClient unary methods", () => {
  it("reads the server config of the environment it connected to", async () => {
    const client = await connect(env, env.readToken);
    const config = await client.getConfig();
    expect(config.environment.environmentId).toBe(env.environmentId);
    expect(Array.isArray(config.providers)).toBe(true);
  });

  it("probes the connection", async () => {
    const client = await connect(env, env.readToken);
    await expect(client.probe()).resolves.toBeUndefined();
    expect(client.isOpen).toBe(true);
  });

  it("dispatches a command once and returns its sequence", async () => {
    const client = await connect(env, env.operateToken);
    const threadId = await firstThreadId(env);
    const command = rename(threadId, "renamed by the rpc test");
    const { sequence } = await client.dispatchCommand(command);
    expect(sequence).toBeGreaterThan(0);
    const received = env.model.receivedCommands.filter(
      (c: { commandId: string }) => c.commandId === command.commandId,
    );
    expect(received).toHaveLength(1);
  });

  it("types a dispatch over a read-only token as insufficient_scope", async () => {
    const client = await connect(env, env.readToken);
    const error = await caughtConnectorError(
      client.dispatchCommand(rename(await firstThreadId(env), "nope")),
    );
    expect(error.code).toBe("insufficient_scope");
    expect(error.t3).toMatchObject({
      tag: "EnvironmentAuthorizationError",
      requiredScope: "orchestration:operate",
    });
  });

  it("types a command for an unknown thread as rpc_failure, not as a lost connection", async () => {
    const client = await connect(env, env.operateToken);
    const error = await caughtConnectorError(client.dispatchCommand(rename(randomUUID(), "ghost")));
    expect(error.code).toBe("rpc_failure");
    expect(error.t3?.tag).toBe("OrchestrationV2DispatchCommandError");
    expect(error.details).not.toHaveProperty("cause");
    expect(client.isOpen).toBe(true);
  });

  it("types a malformed command (a Die) as protocol_error", async () => {
    const client = await connect(env, env.operateToken);
    const error = await caughtConnectorError(
      client.dispatchCommand({ type: "thread.settle", commandId: randomUUID() }),
    );
    expect(error.code).toBe("protocol_error");
    expect(client.isOpen).toBe(true);
  });

  it("types an unknown method as protocol_error", async () => {
    const client = await connect(env, env.readToken);
    const error = await caughtConnectorError(client.call("orchestration.doesNotExist", {}));
    expect(error.code).toBe("protocol_error");
    expect(error.message).toContain("orchestration.doesNotExist");
  });

  it("launches a thread", async () => {
    const client = await connect(env, env.operateToken);
    const shell = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getShell();
    const project = shell.projects[0];
    const config = await client.getConfig();
    const provider = config.providers[0];
    const modelSelection = project?.defaultModelSelection ?? {
      instanceId: provider?.instanceId,
      model: provider?.models[0]?.slug,
    };
    const threadId = randomUUID();
    const result = await client.launchThread({
      commandId: randomUUID(),
      threadId,
      projectId: project?.id,
      title: "launched by the rpc test",
      modelSelection,
      runtimeMode: "full-access",
      interactionMode: "default",
      workspaceStrategy: { type: "root" },
    });
    expect(result.threadId).toBe(threadId);
    expect(result.resumed).toBe(false);
    expect((result.projection as { thread?: { id?: string } }).thread?.id).toBe(threadId);
  });

  it("reads the archived shell and a bare thread projection", async () => {
    const client = await connect(env, env.readToken);
    const archived = await client.getArchivedShellSnapshot();
    expect(Array.isArray(archived.threads)).toBe(true);
    const threadId = await firstThreadId(env);
    const projection = await client.getThreadProjection(threadId);
    expect(projection.thread.id).toBe(threadId);
    const missing = await caughtConnectorError(client.getThreadProjection(randomUUID()));
    expect(missing.code).toBe("rpc_failure");
    expect(missing.t3?.tag).toBe("OrchestrationV2GetThreadProjectionError");
  });

  it("connects with a bearer header instead of a ticket", async () => {
    const client = await connect(env, env.readToken, { socketAuth: "bearer" });
    await expect(client.probe()).resolves.toBeUndefined();
  });

  it("works against a transitional server that ignores the protocol parameter", async () => {
    const client = await connect(transitional, transitional.readToken);
    const config = await client.getConfig();
    expect(config.environment.environmentId).toBe(transitional.environmentId);
    expect(config.environment.orchestrationProtocolVersion).toBeUndefined();
  });

  it("types a refused upgrade: 426 without the protocol parameter", async () => {
    const stripped = (url: string, headers: Record<string, string>) => {
      const parsed = new URL(url);
      parsed.searchParams.delete("orchestrationProtocol");
      return nodeWebSocketFactory(parsed.toString(), headers);
    };
    const error = await caughtConnectorError(connect(env, env.readToken, { webSocketFactory: stripped }));
    expect(error.code).toBe("protocol_unsupported");
    expect(error.status).toBe(426);
    expect(error.message).not.toContain("wsTicket");
  });

  it.each([
    ["ticket", "ticket" as const],
    ["bearer header", "bearer" as const],
  ])("types a hung server at connect (%s) as unavailable", async (_name, socketAuth) => {
    env.faults.set({ hang: true });
    const error = await caughtConnectorError(
      connect(env, env.readToken, { socketAuth, connectTimeoutMs: 200 }),
    );
    expect(error.code).toBe("unavailable");
  });

  it("types expired tokens at connect as unauthorized", async () => {
    env.faults.set({ expireTokens: true });
    const error = await caughtConnectorError(connect(env, env.readToken));
    expect(error.code).toBe("unauthorized");
    expect(error.message).not.toContain(env.readToken);
  });

  it("keeps a connection whose Pings are answered", async () => {
    const timers = new ManualTimers();
    const pongs = new ItemLog<unknown>();
    const client = await connect(env, env.readToken, {
      timers,
      pingIntervalMs: 1_000,
      onFrame: (direction, frame) => {
        if (direction === "received" && (frame as { _tag?: string })._tag === "Pong") pongs.push(frame);
      },
    });
    for (let round = 1; round <= 2; round++) {
      timers.fire(1_000);
      await pongs.waitFor(() => pongs.items.length >= round);
    }
    timers.fire(1_000);
    expect(client.isOpen).toBe(true);
    await client.probe();
  });
});

describe("T3RpcClient streams", () => {
  it("subscribes to the shell: snapshot pair, synchronized marker, then live updates", async () => {
    const client = await connect(env, env.readToken);
    const operator = await connect(env, env.operateToken);
    const log = new ItemLog<ShellStreamItem>();
    const sub = client.subscribeShell({ requestCompletionMarker: true, onItem: log.push });
    await log.waitFor((item) => item.kind === "synchronized");
    const beforeMarker = log.items.slice(
      0,
      log.items.findIndex((item) => item.kind === "synchronized"),
    );
    expect(beforeMarker.length).toBeGreaterThan(0);
    expect(beforeMarker.every((item) => item.kind === "snapshot")).toBe(true);
    // T3's pair: the same snapshot twice, the copy adding the repository roots (surprise 12).
    expect(beforeMarker).toHaveLength(2);
    const [plain, withRoots] = beforeMarker;
    expect(plain?.kind === "snapshot" && withRoots?.kind === "snapshot").toBe(true);
    if (plain?.kind === "snapshot" && withRoots?.kind === "snapshot") {
      expect(withRoots.snapshot.snapshotSequence).toBe(plain.snapshot.snapshotSequence);
      expect(Array.isArray(withRoots.resolvedRepositoryIdentityRoots)).toBe(true);
    }

    const threadId = await firstThreadId(env);
    await operator.dispatchCommand(rename(threadId, "shell live update"));
    const update = await log.waitFor(
      (item) =>
        item.kind === "thread.updated" &&
        item.thread.id === threadId &&
        item.thread.title === "shell live update",
    );
    expect(update.kind).toBe("thread.updated");
    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
  });

  it("holds the next chunk until the previous one was delivered and acknowledged", async () => {
    const frames: { direction: string; frame: { _tag?: string; requestId?: string } }[] = [];
    const client = await connect(env, env.readToken, {
      onFrame: (direction, frame) => frames.push({ direction, frame: frame as { _tag?: string } }),
    });
    const operator = await connect(env, env.operateToken);
    const hold = deferred();
    const log = new ItemLog<ShellStreamItem>();
    const sub = client.subscribeShell({
      onItem: async (item) => {
        log.push(item);
        if (log.items.length === 1) await hold.promise;
      },
    });
    await log.waitFor(() => true);
    const threadId = await firstThreadId(env);
    await operator.dispatchCommand(rename(threadId, "while held"));
    // A round trip on the held socket: any Chunk sent before its answer has been received.
    await client.probe();
    const chunksWhileHeld = frames.filter(
      (f) => f.direction === "received" && f.frame._tag === "Chunk",
    ).length;
    expect(chunksWhileHeld).toBe(1);
    expect(frames.some((f) => f.direction === "sent" && f.frame._tag === "Ack")).toBe(false);

    hold.resolve();
    await log.waitFor((item) => item.kind === "thread.updated" && item.thread.title === "while held");
    const received = frames.filter((f) => f.direction === "received" && f.frame._tag === "Chunk").length;
    const acked = frames.filter((f) => f.direction === "sent" && f.frame._tag === "Ack").length;
    expect(acked).toBeGreaterThanOrEqual(received - 1);
    sub.close();
  });

  it("subscribes to a thread and closes it cleanly despite T3's interrupt Die", async () => {
    const client = await connect(env, env.readToken);
    const operator = await connect(env, env.operateToken);
    const threadId = await firstThreadId(env);
    const log = new ItemLog<ThreadStreamItem>();
    const sub = client.subscribeThread({ threadId, requestCompletionMarker: true, onItem: log.push });
    const snapshot = await log.waitFor((item) => item.kind === "snapshot");
    await log.waitFor((item) => item.kind === "synchronized");
    expect(snapshot.kind === "snapshot" && snapshot.projection.thread.id).toBe(threadId);

    await operator.dispatchCommand(rename(threadId, "thread live event"));
    const event = await log.waitFor(
      (item) => item.kind === "event" && item.event.type === "thread.metadata-updated",
    );
    expect(
      event.kind === "event" && snapshot.kind === "snapshot" && event.sequence > snapshot.snapshotSequence,
    ).toBe(true);
    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
    await expect(client.probe()).resolves.toBeUndefined();
  });

  it("replays events after a sequence instead of a snapshot", async () => {
    const client = await connect(env, env.readToken);
    const operator = await connect(env, env.operateToken);
    const threadId = await firstThreadId(env);
    const { snapshotSequence } = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getThread(
      threadId,
    );
    await operator.dispatchCommand(rename(threadId, "replayed"));
    const log = new ItemLog<ThreadStreamItem>();
    const sub = client.subscribeThread({
      threadId,
      afterSequence: snapshotSequence,
      requestCompletionMarker: true,
      onItem: log.push,
    });
    await log.waitFor((item) => item.kind === "synchronized");
    const events = log.items.filter((item) => item.kind === "event");
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((item) => item.kind === "event" && item.sequence > snapshotSequence)).toBe(true);
    sub.close();
  });

  it("subscribes to the archived shell, whose items carry no location", async () => {
    const client = await connect(env, env.readToken);
    const log = new ItemLog<ShellStreamItem>();
    const sub = client.subscribeArchivedShell({ onItem: log.push });
    const first = await log.waitFor(() => true);
    expect(first.kind).toBe("snapshot");
    expect(first.kind === "snapshot" && first.snapshot.threads.every((t) => t.archivedAt)).toBe(true);
    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
  });

  it("fails a thread subscription for an unknown thread with the typed error", async () => {
    const client = await connect(env, env.readToken);
    const sub = client.subscribeThread({ threadId: randomUUID(), onItem: () => {} });
    const error = await caughtConnectorError(sub.done);
    expect(error.code).toBe("rpc_failure");
    expect(error.t3?.tag).toBe("OrchestrationV2GetThreadProjectionError");
  });
});

describe("T3RpcClient socket loss", () => {
  it("fails calls in flight and open streams with connection_lost", async () => {
    const client = await connect(env, env.readToken);
    const closed = deferred<ConnectorError | undefined>();
    client.onClose((error) => closed.resolve(error));
    const log = new ItemLog<ShellStreamItem>();
    const sub = client.subscribeShell({ onItem: log.push });
    await log.waitFor((item) => item.kind === "snapshot");
    env.faults.set({ hang: true });
    const pending = client.getConfig();
    env.dropSockets();

    expect((await caughtConnectorError(pending)).code).toBe("connection_lost");
    expect((await caughtConnectorError(sub.done)).code).toBe("connection_lost");
    expect((await closed.promise)?.code).toBe("connection_lost");
    expect(client.isOpen).toBe(false);
    expect((await caughtConnectorError(client.probe())).code).toBe("unavailable");
  });

  it("reports a dispatch lost after the send as connection_lost, and never resends it", async () => {
    const client = await connect(env, env.operateToken);
    const threadId = await firstThreadId(env);
    env.faults.set({ dropSocketAfterDispatch: true });
    const command = rename(threadId, "lost after send");
    const error = await caughtConnectorError(client.dispatchCommand(command));
    expect(error.code).toBe("connection_lost");
    expect(
      env.model.receivedCommands.filter((c: { commandId: string }) => c.commandId === command.commandId),
    ).toHaveLength(1);
  });
});
