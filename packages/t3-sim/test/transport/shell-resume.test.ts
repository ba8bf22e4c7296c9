/**
 * The protocol-2 shell streams as current upstream serves them (ShellStream.ts @85643217 and the
 * subscribeShell handler): metadata-only resume, enrichment refreshes, archived threads only in
 * the archived snapshot and stream. Real sockets throughout.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { RawRpcClient, startSim, type TestEnv, type TestSim } from "./helpers.js";
import { type ShellItem, StreamWatch } from "./shell-watch.js";

let sim: TestSim | undefined;
const clients: RawRpcClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await sim?.close();
  sim = undefined;
});

async function start(options: { compat?: "0.0.31"; shellSuppression?: boolean } = {}) {
  sim = await startSim({ environments: [{ alias: "env", seed: "empty", ...options }] });
  const env = sim.environment("env");
  const project = env.model.addProject({ title: "app", workspaceRoot: "/home/sim/code/app" });
  const threads = ["one", "two", "three"].map((title) =>
    env.model.addThread({ projectId: project.id, title }),
  );
  return { env, project, threads };
}

async function connect(env: TestEnv): Promise<RawRpcClient> {
  const client = await RawRpcClient.connect(env.url, env.adminToken);
  clients.push(client);
  return client;
}

let requestCounter = 0;
async function command(client: RawRpcClient, payload: Record<string, unknown>): Promise<number> {
  const exit = (await client.call(`c${++requestCounter}`, "orchestration.dispatchCommand", {
    commandId: randomUUID(),
    ...payload,
  })) as unknown as { exit: { _tag: string; value?: { sequence: number } } };
  if (exit.exit._tag !== "Success") throw new Error(`command failed: ${JSON.stringify(exit)}`);
  return exit.exit.value?.sequence ?? -1;
}

const snapshotOf = (item: ShellItem) =>
  item.snapshot as {
    snapshotSequence: number;
    threads: { id: string }[];
    archivedThreads: unknown[];
    projects: { id: string }[];
  };

describe("subscribeShell on protocol 2: first subscribe", () => {
  it("sends the authoritative snapshot, then a same-sequence metadata frame with the resolved roots", async () => {
    const { env, project, threads } = await start();
    const watch = StreamWatch.open(await connect(env), "s1", "orchestration.subscribeShell", {});
    await watch.waitFor((item) => item.kind === "snapshot" && "resolvedRepositoryIdentityRoots" in item);
    const [authoritative, metadata] = watch.chunks[0] as ShellItem[];
    expect(authoritative).toEqual({ kind: "snapshot", snapshot: expect.any(Object) });
    expect(
      snapshotOf(authoritative as ShellItem)
        .threads.map((t) => t.id)
        .sort(),
    ).toEqual([...threads].sort());
    expect(metadata).toMatchObject({
      kind: "snapshot",
      resolvedRepositoryIdentityRoots: ["/home/sim/code/app"],
      snapshot: {
        snapshotSequence: env.model.sequence,
        threads: [],
        archivedThreads: [],
        projects: [{ id: project.id }],
      },
    });
  });
});

describe("subscribeShell on protocol 2: resume after a dropped socket", () => {
  it("answers a metadata-only snapshot at the high-water mark, then the missed items, the marker and live items", async () => {
    const { env, threads } = await start();
    const [one, two, three] = threads as [string, string, string];
    const first = await connect(env);
    const watch = StreamWatch.open(first, "s1", "orchestration.subscribeShell", {});
    await watch.waitFor((item) => item.kind === "snapshot");
    // Under load: commands from a second socket while the watcher's socket is dropped mid-stream.
    const writer = await connect(env);
    await command(writer, { type: "thread.pin", threadId: one });
    await watch.waitFor((item) => item.kind === "thread.updated");
    const cursor = watch.cursor;
    // Sent without waiting: dropSockets also drops the writer, so some Exits never come.
    for (const payload of [
      { type: "thread.settle", threadId: two },
      { type: "thread.pin", threadId: three },
      { type: "thread.archive", threadId: one },
    ])
      writer.request(`w${++requestCounter}`, "orchestration.dispatchCommand", {
        commandId: randomUUID(),
        ...payload,
      });
    env.dropSockets();
    await Promise.all([first.closed, writer.closed]);
    const writer2 = await connect(env);
    await command(writer2, { type: "thread.archive", threadId: one });
    await command(writer2, { type: "thread.pin", threadId: three });
    const missed = [
      await command(writer2, { type: "thread.metadata.update", threadId: three, title: "renamed" }),
    ];
    const highWater = env.model.sequence;
    expect(Math.max(...missed)).toBe(highWater);

    const resumed = StreamWatch.open(await connect(env), "s2", "orchestration.subscribeShell", {
      afterSequence: cursor,
      requestCompletionMarker: true,
    });
    await resumed.waitFor((item) => item.kind === "synchronized");
    const kinds = resumed.items.map((item) => item.kind);
    expect(kinds[0]).toBe("snapshot");
    expect(kinds.filter((kind) => kind === "snapshot")).toHaveLength(1);
    expect(kinds.at(-1)).toBe("synchronized");
    const metadata = resumed.items[0] as ShellItem;
    expect(metadata).toMatchObject({
      resolvedRepositoryIdentityRoots: ["/home/sim/code/app"],
      snapshot: { snapshotSequence: highWater, threads: [], archivedThreads: [] },
    });
    const replay = resumed.items.slice(1, -1);
    // Newest item per thread, in sequence order, the archived one as thread.removed (location active).
    const sequences = replay.map((item) => item.sequence as number);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(sequences.every((sequence) => sequence > cursor && sequence <= highWater)).toBe(true);
    expect(replay.find((item) => item.threadId === one)).toMatchObject({
      kind: "thread.removed",
      location: "active",
    });
    expect(replay.find((item) => (item.thread as { id?: string })?.id === three)).toMatchObject({
      kind: "thread.updated",
      location: "active",
      thread: { title: "renamed", pinnedAt: expect.any(String) },
    });
    // One item per thread at most (the settle of `two` may or may not have landed before the drop).
    const ids = replay.map((item) => item.threadId ?? (item.thread as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id === two).length).toBe(
      (env.model.getThread(two)?.lastSequence ?? 0) > cursor ? 1 : 0,
    );

    const live = await command(writer2, { type: "thread.unpin", threadId: three });
    expect(await resumed.waitFor((item) => item.sequence === live)).toMatchObject({
      kind: "thread.updated",
      location: "active",
    });
  });

  it("answers a full snapshot when the cursor is ahead of the server or more than 1000 behind", async () => {
    const { env } = await start();
    const ahead = StreamWatch.open(await connect(env), "s1", "orchestration.subscribeShell", {
      afterSequence: env.model.sequence + 5,
    });
    const first = await ahead.waitFor((item) => item.kind === "snapshot");
    expect(first).not.toHaveProperty("resolvedRepositoryIdentityRoots");
    expect(snapshotOf(first).threads).toHaveLength(3);
  });
});

describe("enrichment refreshes", () => {
  it("arrive at runtime as metadata-only snapshots of the resolved projects, repeated ones dropped", async () => {
    const { env, project } = await start();
    const other = env.model.addProject({ title: "lib", workspaceRoot: "/home/sim/code/lib" });
    const watch = StreamWatch.open(await connect(env), "s1", "orchestration.subscribeShell", {});
    await watch.waitFor((item) => "resolvedRepositoryIdentityRoots" in item);
    const identity = {
      canonicalKey: "github.com/sim/app",
      locator: { source: "git-remote", remoteName: "origin", remoteUrl: "git@github.com:sim/app.git" },
    };
    env.model.refreshRepositoryIdentity({
      workspaceRoots: ["/home/sim/code/app"],
      repositoryIdentity: identity,
    });
    const refresh = await watch.waitFor(
      (item) => item.kind === "snapshot" && snapshotOf(item).projects.length === 1,
    );
    expect(refresh).toEqual({
      kind: "snapshot",
      snapshot: {
        schemaVersion: 2,
        snapshotSequence: env.model.sequence,
        projects: [expect.objectContaining({ id: project.id, repositoryIdentity: identity })],
        threads: [],
        archivedThreads: [],
      },
      resolvedRepositoryIdentityRoots: ["/home/sim/code/app"],
    });
    // The same refresh again is deduplicated; a different one goes out.
    env.model.refreshRepositoryIdentity({ workspaceRoots: ["/home/sim/code/app"] });
    env.model.refreshRepositoryIdentity({ workspaceRoots: ["/home/sim/code/lib"] });
    const next = await watch.waitFor(
      (item) => item.kind === "snapshot" && snapshotOf(item).projects[0]?.id === other.id,
    );
    expect(next.resolvedRepositoryIdentityRoots).toEqual(["/home/sim/code/lib"]);
    expect(watch.ofKind("snapshot")).toHaveLength(4);
  });
});

describe("archived threads on protocol 2", () => {
  it("archive: thread.removed (active) on the shell, thread.updated on the archived stream; unarchive the reverse", async () => {
    const { env, threads } = await start();
    const [one] = threads as [string];
    const client = await connect(env);
    const shell = StreamWatch.open(client, "s1", "orchestration.subscribeShell", {});
    const archive = StreamWatch.open(client, "s2", "orchestration.subscribeArchivedShell", {});
    await shell.waitFor((item) => item.kind === "snapshot");
    const archivedSnapshot = await archive.waitFor((item) => item.kind === "snapshot");
    expect((archivedSnapshot.snapshot as { threads: unknown[] }).threads).toEqual([]);

    const archived = await command(client, { type: "thread.archive", threadId: one });
    expect(await shell.waitFor((item) => item.sequence === archived)).toEqual({
      kind: "thread.removed",
      sequence: archived,
      location: "active",
      threadId: one,
    });
    expect(await archive.waitFor((item) => item.sequence === archived)).toMatchObject({
      kind: "thread.updated",
      thread: { id: one, archivedAt: expect.any(String) },
    });
    const http = await fetch(`${env.url}/api/orchestration/shell`, {
      headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
    });
    const body = (await http.json()) as { threads: { id: string }[]; archivedThreads: unknown[] };
    expect(body.archivedThreads).toEqual([]);
    expect(body.threads.map((t) => t.id)).not.toContain(one);
    const snapshot = (await client.call("a1", "orchestration.getArchivedShellSnapshot", {})) as unknown as {
      exit: { value: { threads: { id: string }[] } };
    };
    expect(snapshot.exit.value.threads.map((t) => t.id)).toEqual([one]);

    const unarchived = await command(client, { type: "thread.unarchive", threadId: one });
    expect(await shell.waitFor((item) => item.sequence === unarchived)).toMatchObject({
      kind: "thread.updated",
      location: "active",
      thread: { id: one, archivedAt: null },
    });
    expect(await archive.waitFor((item) => item.sequence === unarchived)).toEqual({
      kind: "thread.removed",
      sequence: unarchived,
      threadId: one,
    });
    expect(shell.items.some((item) => item.location === "archive")).toBe(false);
  });

  it("a thread archived in a project the archived stream has not seen restarts it from a fresh snapshot", async () => {
    const { env } = await start();
    const client = await connect(env);
    const archive = StreamWatch.open(client, "s2", "orchestration.subscribeArchivedShell", {});
    await archive.waitFor((item) => item.kind === "snapshot");
    const later = env.model.addProject({ title: "later", workspaceRoot: "/home/sim/code/later" });
    const thread = env.model.addThread({ projectId: later.id, title: "late" });
    await command(client, { type: "thread.archive", threadId: thread });
    const fresh = await archive.waitFor(
      (item) => item.kind === "snapshot" && (item.snapshot as { threads: unknown[] }).threads.length === 1,
    );
    expect((fresh.snapshot as { projects: { id: string }[] }).projects.map((p) => p.id)).toContain(later.id);
    expect(archive.ofKind("thread.updated")).toEqual([]);
  });

  it("0.0.31 keeps its captured shapes: archivedThreads filled and location archive", async () => {
    const { env, threads } = await start({ compat: "0.0.31" });
    const [one] = threads as [string];
    const client = await connect(env);
    const shell = StreamWatch.open(client, "s1", "orchestration.subscribeShell", {});
    await shell.waitFor((item) => item.kind === "snapshot");
    const archived = await command(client, { type: "thread.archive", threadId: one });
    expect(await shell.waitFor((item) => item.sequence === archived)).toMatchObject({
      kind: "thread.updated",
      location: "archive",
    });
    const http = await fetch(`${env.url}/api/orchestration/shell`, {
      headers: { authorization: `Bearer ${env.readToken}` },
    });
    const body = (await http.json()) as { archivedThreads: { id: string }[] };
    expect(body.archivedThreads.map((t) => t.id)).toEqual([one]);
  });
});

describe("unchanged rows and coalescing on protocol 2 (manual clock)", () => {
  async function startManual(shellSuppression?: boolean) {
    sim = await startSim({
      clock: "manual",
      environments: [
        { alias: "env", seed: "empty", ...(shellSuppression === undefined ? {} : { shellSuppression }) },
      ],
    });
    const env = sim.environment("env");
    const project = env.model.addProject({ title: "app", workspaceRoot: "/home/sim/code/app" });
    const one = env.model.addThread({ projectId: project.id, title: "one" });
    const two = env.model.addThread({ projectId: project.id, title: "two" });
    const client = await connect(env);
    const shell = StreamWatch.open(client, "s1", "orchestration.subscribeShell", {});
    await shell.waitFor((item) => item.kind === "snapshot");
    return { env, client, shell, one, two };
  }

  it("folds a window's commands into one item per thread, sent when the 50 ms window closes", async () => {
    const { env, client, shell, one } = await startManual();
    await command(client, { type: "thread.pin", threadId: one });
    const last = await command(client, { type: "thread.metadata.update", threadId: one, title: "renamed" });
    expect(shell.ofKind("thread.updated")).toEqual([]);
    env.clock.advance(50);
    const item = await shell.waitFor((i) => i.kind === "thread.updated");
    expect(item).toMatchObject({
      sequence: last,
      thread: { id: one, title: "renamed", pinnedAt: expect.any(String) },
    });
    expect(shell.ofKind("thread.updated")).toHaveLength(1);
  });

  it("holds back a row whose only change is updatedAt for 5 s: a no-op unpin sends nothing", async () => {
    const { env, client, shell, one, two } = await startManual();
    await command(client, { type: "thread.pin", threadId: one });
    env.clock.advance(50);
    await shell.waitFor((i) => i.kind === "thread.updated");
    await command(client, { type: "thread.unpin", threadId: one });
    env.clock.advance(50);
    await shell.waitFor(
      (i) => i.kind === "thread.updated" && (i.thread as { pinnedAt: unknown }).pinnedAt === null,
    );
    // The no-op: same row, sent 50 ms ago. A change on another thread marks the window's output.
    await command(client, { type: "thread.unpin", threadId: one });
    const marker = await command(client, { type: "thread.pin", threadId: two });
    env.clock.advance(50);
    await shell.waitFor((i) => i.sequence === marker);
    expect(shell.chunks.at(-1)?.map((i) => (i.thread as { id: string }).id)).toEqual([two]);
    // Once the last send of that row is 5 s old, the same row goes out again.
    env.clock.advance(5_000);
    const again = await command(client, { type: "thread.unpin", threadId: one });
    env.clock.advance(50);
    expect(await shell.waitFor((i) => i.sequence === again)).toMatchObject({ thread: { id: one } });
  });

  it("with shellSuppression off sends one item per commit at once, unchanged rows included", async () => {
    const { client, shell, one } = await startManual(false);
    const first = await command(client, { type: "thread.unpin", threadId: one });
    await shell.waitFor((i) => i.sequence === first);
    const second = await command(client, { type: "thread.unpin", threadId: one });
    expect(await shell.waitFor((i) => i.sequence === second)).toMatchObject({ kind: "thread.updated" });
  });
});
