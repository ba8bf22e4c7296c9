import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { createTokenFiles, type TokenFiles } from "@t3-connector/test-support/token-files";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConnectedEnvironment, EnvironmentRegistry, READ_SCOPES } from "../../src/environments/index.js";
import { isConnectorError } from "../../src/errors.js";
import { type ShellChange, type ShellMirror, ShellMirrors } from "../../src/mirror/index.js";
import { comparable, dispatch, nextEvent, statusOf, threadChange, titleOf } from "./support.js";

let sim: Simulator;
let env: SimEnvironment;
let tokens: TokenFiles;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  sim = await startSimulator({
    environments: [{ alias: "alpha", environmentId: "env-alpha", seed: "demo" }],
  });
  env = sim.environment("alpha");
  tokens = await createTokenFiles();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  env.faults.clear();
});

afterAll(async () => {
  await sim.close();
  await tokens.remove();
});

interface Setup {
  registry: EnvironmentRegistry;
  mirrors: ShellMirrors;
  connection: ConnectedEnvironment;
  /** The connection's mirror, started by a first (HTTP) read and ready. */
  mirror: ShellMirror;
}

async function start(options: { maxReconnectAttempts?: number } = {}): Promise<Setup> {
  const registry = new EnvironmentRegistry({
    environments: [
      {
        alias: "alpha",
        environmentId: env.environmentId,
        transport: { kind: "url", url: env.url },
        tokenFile: await tokens.write(`alpha-${randomUUID()}`, env.readToken),
      },
    ],
    requiredScopes: READ_SCOPES,
  });
  const mirrors = new ShellMirrors({ reconnectDelayMs: 20, ...options });
  cleanups.push(
    () => mirrors.close(),
    () => registry.close(),
  );
  const connection = await registry.connect("alpha");
  const first = await mirrors.readShell(connection);
  expect(first.source).toBe("http");
  const mirror = mirrors.peek(connection);
  if (mirror === undefined) throw new Error("the first read started no mirror");
  await statusOf(mirror, "ready");
  return { registry, mirrors, connection, mirror };
}

async function httpShell(connection: ConnectedEnvironment) {
  return comparable(await connection.http.getShell());
}

async function firstActiveThread(connection: ConnectedEnvironment): Promise<string> {
  const shell = await connection.http.getShell();
  const thread = shell.threads.find((row) => !row.deletedAt);
  if (!thread) throw new Error("the demo seed has no active thread");
  return thread.id;
}

describe("a shell mirror over the simulator", () => {
  it("serves the first read over HTTP, then the same shell from the mirror, following commands", async () => {
    const { mirrors, connection, mirror } = await start();
    const ready = await mirrors.readShell(connection);
    expect(ready.source).toBe("mirror");
    expect(comparable(ready.shell)).toEqual(await httpShell(connection));
    // The snapshot pair's second copy carries the repository roots (one per project root here).
    const roots = new Set((await connection.http.getShell()).projects.map((p) => p.workspaceRoot));
    expect(new Set(mirror.repositoryRoots)).toEqual(roots);

    const threadId = await firstActiveThread(connection);
    const versionBefore = mirror.version;
    const changed = threadChange(mirror, threadId);
    await dispatch(env, { type: "thread.metadata.update", threadId, title: "renamed through a command" });
    await changed;

    const after = await mirrors.readShell(connection);
    expect(after.source).toBe("mirror");
    expect(titleOf(after.shell, threadId)).toBe("renamed through a command");
    expect(mirror.version).toBeGreaterThan(versionBefore);
    expect(comparable(after.shell)).toEqual(await httpShell(connection));
  });

  it("drops an archived thread (current T3 sends thread.removed), takes it back on unarchive, forgets a deleted one", async () => {
    const { mirrors, connection, mirror } = await start();
    const threadId = await firstActiveThread(connection);

    // Upstream ShellStream.ts: an archived row leaves the active shell as `thread.removed`; the
    // archived rows are only in the archived shell snapshot (read on demand, ADR 0010).
    const archived = threadChange(mirror, threadId, "thread.removed");
    await dispatch(env, { type: "thread.archive", threadId });
    await archived;
    let shell = mirror.snapshot();
    expect(shell?.threads.some((row) => row.id === threadId)).toBe(false);
    expect(shell?.archivedThreads).toEqual([]);
    const archivedShell = await (await connection.rpc()).getArchivedShellSnapshot();
    expect(archivedShell.threads.some((row) => row.id === threadId)).toBe(true);

    const unarchived = threadChange(mirror, threadId);
    await dispatch(env, { type: "thread.unarchive", threadId });
    await unarchived;
    shell = mirror.snapshot();
    expect(shell?.threads.some((row) => row.id === threadId)).toBe(true);
    expect(shell?.archivedThreads.some((row) => row.id === threadId)).toBe(false);

    const removed = threadChange(mirror, threadId, "thread.removed");
    await dispatch(env, { type: "thread.delete", threadId });
    await removed;
    const read = await mirrors.readShell(connection);
    expect(read.source).toBe("mirror");
    expect([...read.shell.threads, ...read.shell.archivedThreads].some((row) => row.id === threadId)).toBe(
      false,
    );
    expect(comparable(read.shell)).toEqual(await httpShell(connection));
  });

  it("follows projects as they are created, renamed and deleted", async () => {
    const { mirrors, connection, mirror } = await start();
    const projectId = randomUUID();
    const projectChange = (kind: ShellChange["kind"]) =>
      nextEvent(
        mirror,
        (event) =>
          event.type === "change" &&
          event.change.kind === kind &&
          "projectId" in event.change &&
          event.change.projectId === projectId,
      );
    const mutate = (body: Record<string, unknown>) => {
      const outcome = env.model.httpProjectsMutate({ commandId: randomUUID(), projectId, ...body });
      expect(outcome.kind).toBe("ok");
    };

    let changed = projectChange("project.updated");
    mutate({ type: "project.create", title: "mirrored project", workspaceRoot: tmpdir() });
    await changed;
    expect(mirror.snapshot()?.projects.find((p) => p.id === projectId)?.title).toBe("mirrored project");

    changed = projectChange("project.updated");
    mutate({ type: "project.update", title: "mirrored project, renamed" });
    await changed;
    expect(mirror.snapshot()?.projects.find((p) => p.id === projectId)?.title).toBe(
      "mirrored project, renamed",
    );

    changed = projectChange("project.removed");
    mutate({ type: "project.delete" });
    await changed;
    const read = await mirrors.readShell(connection);
    expect(read.source).toBe("mirror");
    expect(read.shell.projects.some((p) => p.id === projectId)).toBe(false);
    expect(comparable(read.shell)).toEqual(await httpShell(connection));
  });

  it("resumes after dropped sockets, serving HTTP meanwhile, with no update lost or applied twice", async () => {
    const { mirrors, connection, mirror } = await start();
    const threadId = await firstActiveThread(connection);
    const applied: string[] = [];
    mirror.onChange((event) => {
      if (event.type === "change" && event.change.kind === "thread.updated") {
        applied.push(`${event.change.threadId}@${event.change.sequence}`);
      }
    });

    const before = threadChange(mirror, threadId);
    await dispatch(env, { type: "thread.metadata.update", threadId, title: "before the drop" });
    await before;

    const resyncing = statusOf(mirror, "resyncing");
    env.dropSockets();
    await resyncing;
    // Until its new completion marker arrives, the mirror is not served.
    const during = await mirrors.readShell(connection);
    expect(during.source).toBe("http");
    await dispatch(env, { type: "thread.metadata.update", threadId, title: "during the drop" });

    await statusOf(mirror, "ready");
    const after = await mirrors.readShell(connection);
    expect(after.source).toBe("mirror");
    expect(mirrors.peek(connection)).toBe(mirror);
    expect(titleOf(after.shell, threadId)).toBe("during the drop");
    expect(comparable(after.shell)).toEqual(await httpShell(connection));
    expect(new Set(applied).size).toBe(applied.length);

    // And it keeps following live changes on the new socket.
    const live = threadChange(mirror, threadId);
    await dispatch(env, { type: "thread.metadata.update", threadId, title: "after the drop" });
    await live;
    expect(titleOf((await mirrors.readShell(connection)).shell, threadId)).toBe("after the drop");
    expect(new Set(applied).size).toBe(applied.length);
  });

  it("keeps every thread when the socket drops in the middle of a burst of updates", async () => {
    const { mirrors, connection, mirror } = await start();
    const threadIds = (await connection.http.getShell()).threads.map((row) => row.id);
    expect(threadIds.length).toBeGreaterThan(1);

    const resumed = (async () => {
      await statusOf(mirror, "resyncing");
      await statusOf(mirror, "ready");
    })();
    const burst: Promise<void>[] = [];
    for (let round = 0; round < 8; round += 1) {
      for (const threadId of threadIds) {
        burst.push(dispatch(env, { type: "thread.metadata.update", threadId, title: `round ${round}` }));
      }
      if (round === 3) env.dropSockets();
      // Let the stream carry part of the burst before the drop and the rest after it.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await Promise.all(burst);
    await resumed;
    // The last command's item comes after every earlier one on the same ordered stream.
    const sentinel = threadIds[0] as string;
    const last = nextEvent(mirror, () => {
      const shell = mirror.snapshot();
      return shell !== undefined && titleOf(shell, sentinel) === "after the burst";
    });
    await dispatch(env, { type: "thread.metadata.update", threadId: sentinel, title: "after the burst" });
    await last;

    const read = await mirrors.readShell(connection);
    expect(read.source).toBe("mirror");
    expect(mirrors.peek(connection)).toBe(mirror);
    expect(read.shell.threads.map((row) => row.id).sort()).toEqual([...threadIds].sort());
    expect(comparable(read.shell)).toEqual(await httpShell(connection));
  });

  it("keeps its threads through a runtime enrichment refresh, taking only the project's new identity", async () => {
    const { mirrors, connection, mirror } = await start();
    const before = await mirrors.readShell(connection);
    const project = before.shell.projects[0];
    if (project?.workspaceRoot === undefined) throw new Error("the demo seed has no project root");
    const identity = { canonicalKey: "github.com/example/refreshed" };

    const refreshed = nextEvent(mirror, (event) => event.type === "change" && event.change.kind === "roots");
    env.model.refreshRepositoryIdentity({
      workspaceRoots: [project.workspaceRoot],
      repositoryIdentity: identity,
    });
    await refreshed;

    const after = await mirrors.readShell(connection);
    expect(after.source).toBe("mirror");
    expect(after.shell.threads.map((row) => row.id).sort()).toEqual(
      before.shell.threads.map((row) => row.id).sort(),
    );
    expect(after.shell.projects.find((row) => row.id === project.id)?.repositoryIdentity).toEqual(identity);
    expect(mirror.repositoryRoots).toContain(project.workspaceRoot);
    // Updates after the refresh still apply (its sequence moved no cursor past them).
    const threadId = await firstActiveThread(connection);
    const renamed = threadChange(mirror, threadId);
    await dispatch(env, { type: "thread.metadata.update", threadId, title: "after the refresh" });
    await renamed;
    expect(titleOf((await mirrors.readShell(connection)).shell, threadId)).toBe("after the refresh");
    expect(comparable((await mirrors.readShell(connection)).shell)).toEqual(await httpShell(connection));
  });

  it("falls back to HTTP once its stream gave up, and starts a new mirror on the next read", async () => {
    const { mirrors, connection, mirror } = await start({ maxReconnectAttempts: 0 });
    const failed = statusOf(mirror, "failed");
    env.dropSockets();
    await failed;
    await mirror.done;
    expect(mirror.snapshot()).toBeUndefined();

    const read = await mirrors.readShell(connection);
    expect(read.source).toBe("http");
    expect(comparable(read.shell)).toEqual(await httpShell(connection));
    const next = mirrors.peek(connection);
    expect(next).toBeDefined();
    expect(next).not.toBe(mirror);
  });

  it("never serves the mirror after a reconnect that fails verification", async () => {
    const { registry, mirrors, connection, mirror } = await start();
    env.faults.set({ wrongEnvironmentId: "env-impostor" });
    env.dropSockets();
    // The reconnect verifies first, fails, and the dropped connection takes the mirror with it.
    await mirror.done;

    expect(mirror.status).toBe("closed");
    expect(mirror.snapshot()).toBeUndefined();
    expect(mirrors.peek(connection)).toBeUndefined();
    // The failed check dropped the verified connection with it: nothing is read through it…
    expect(connection.closed).toBe(true);
    const stale = await mirrors.readShell(connection).catch((error: unknown) => error);
    expect(isConnectorError(stale, "unavailable")).toBe(true);
    // …and connecting again verifies again, which refuses the impostor.
    const reconnect = await registry.connect("alpha").catch((error: unknown) => error);
    expect(isConnectorError(reconnect, "environment_mismatch")).toBe(true);
  });

  it("starts one mirror after another: a mirror opens its stream once the previous one has its snapshot", async () => {
    const mirrors = new ShellMirrors({ reconnectDelayMs: 20 });
    const registries = await Promise.all(
      [1, 2, 3].map(
        async (n) =>
          new EnvironmentRegistry({
            environments: [
              {
                alias: "alpha",
                environmentId: env.environmentId,
                transport: { kind: "url", url: env.url },
                tokenFile: await tokens.write(`alpha-turn-${n}-${randomUUID()}`, env.readToken),
              },
            ],
            requiredScopes: READ_SCOPES,
          }),
      ),
    );
    cleanups.push(() => mirrors.close(), ...registries.map((registry) => () => registry.close()));
    const connections = await Promise.all(registries.map((registry) => registry.connect("alpha")));
    // Every mirror exists at once (a read can find it), each one waiting for its turn.
    const listenersBefore = env.model.store.listenerCount;
    const started = connections.map((connection) => mirrors.mirrorOf(connection));
    const streamsOpenWhenFirstStarted = started[0]?.started().then(() => env.model.store.listenerCount);
    const order: number[] = [];
    const statusesWhenLeaving: string[][] = [];
    await Promise.all(
      started.map(async (mirror, index) => {
        if (mirror === undefined) throw new Error("no mirror");
        await mirror.started();
        order.push(index);
        statusesWhenLeaving.push(started.map((other) => other?.status ?? "none"));
      }),
    );
    expect(order).toEqual([0, 1, 2]);
    // Only the first mirror's stream was open on the simulator when it took its snapshot.
    expect((await streamsOpenWhenFirstStarted) ?? 0).toBe(listenersBefore + 1);
    // When a mirror took its snapshot, every later one was still waiting.
    expect(statusesWhenLeaving[0]?.slice(1)).toEqual(["starting", "starting"]);
    expect(statusesWhenLeaving[1]?.slice(2)).toEqual(["starting"]);
    for (const mirror of started) expect(mirror?.ready).toBe(true);
  });

  it("ends with its connection: closing the registry closes the mirror", async () => {
    const { registry, mirror } = await start();
    const closed = statusOf(mirror, "closed");
    await registry.close();
    await closed;
    expect(mirror.snapshot()).toBeUndefined();
  });
});
