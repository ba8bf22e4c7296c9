import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { inboxItemId } from "@t3-connector/core/state";
import {
  addThread,
  latestRun,
  OTHER_PROJECT,
  PROJECT,
  PROJECT_TITLE,
  type SimEvents,
  startRun,
  startSimEvents,
} from "@t3-connector/test-support/sim-events";
import { newSecret, WebhookReceiver } from "@t3-connector/test-support/webhook-receiver";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type EventsService,
  type EventsServiceOptions,
  eventsBackgroundService,
  type FollowerReady,
  readOutboxStatus,
  retryDeadLetter,
  startEventsService,
} from "../src/index.js";

let simEvents: SimEvents;
let receiver: WebhookReceiver;
let secret: string;
let stateDir: string;
let service: EventsService | undefined;
let logs: string[];
let logWaiters: Array<() => void>;

beforeEach(async () => {
  simEvents = await startSimEvents();
  secret = newSecret();
  receiver = new WebhookReceiver(secret);
  await receiver.start();
  stateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3-events-")), "state");
  logs = [];
  logWaiters = [];
});

afterEach(async () => {
  await service?.stop();
  service = undefined;
  await receiver.stop();
  await simEvents.close();
  await rm(path.dirname(stateDir), { recursive: true, force: true });
});

function log(line: string): void {
  logs.push(line);
  for (const wake of logWaiters.splice(0)) wake();
}

/** Resolves once a log line matches (checked on every new line, never on a timer). */
async function logged(pattern: RegExp): Promise<string> {
  for (;;) {
    const line = logs.find((candidate) => pattern.test(candidate));
    if (line !== undefined) return line;
    await new Promise<void>((resolve) => logWaiters.push(resolve));
  }
}

/** Starts the service and resolves once the environment is followed (baseline or catch-up done). */
async function start(options: Partial<EventsServiceOptions> = {}): Promise<FollowerReady> {
  let onReady!: (info: FollowerReady) => void;
  const ready = new Promise<FollowerReady>((resolve) => {
    onReady = resolve;
  });
  service = await startEventsService({
    config: simEvents.config,
    hookUrl: receiver.url,
    secret,
    stateDir,
    log,
    onReady,
    // The grace period has its own test below; here every event goes out as soon as it is derived.
    policy: { baseDelayMs: 20, maxDelayMs: 50, graceMs: 0 },
    ...options,
  });
  return ready;
}

/** The thread's pending runtime request, as the simulator's projection holds it; throws while none. */
function pendingRequestOf(threadId: string): string {
  const requests = (simEvents.env.model.getThread(threadId)?.projection.runtimeRequests ?? []) as Array<{
    id: string;
    status: string;
  }>;
  const pending = requests.find((request) => request.status === "pending");
  if (pending === undefined) throw new Error(`no pending request on ${threadId} yet`);
  return pending.id;
}

/** Drives a run on a new thread to completion and waits for its event: a marker that everything before it went out. */
async function completedRunOn(
  title: string,
  projectId = PROJECT,
): Promise<{ threadId: string; runId: string }> {
  const threadId = addThread(simEvents.env, title, projectId);
  await startRun(simEvents.env, threadId, { reply: "done" });
  simEvents.env.clock.advance(1_000);
  const runId = latestRun(simEvents.env, threadId).id;
  return { threadId, runId };
}

describe("events service against the simulator", () => {
  it("a run that completes produces exactly one signed run.completed POST with the event's fields", async () => {
    const ready = await start();
    expect(ready).toMatchObject({ alias: "alpha", baseline: true });
    const { threadId, runId } = await completedRunOn("Fix the parser");
    await receiver.until(() => receiver.acceptedOfType("run.completed").length === 1);
    // A second, later run is the marker: once its event arrived, a duplicate of the first would have too.
    const marker = await completedRunOn("Marker");
    await receiver.until(() => receiver.accepted.size === 2);
    // Both acknowledged in the outbox, not only answered by the receiver (the two run at once).
    for (const post of receiver.posts) await logged(new RegExp(`delivered ${post.id}`));

    const posts = receiver.posts.filter((post) => post.event?.data.thread.id === threadId);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.verified).toBe(true);
    const event = posts[0]?.event;
    expect(event).toMatchObject({
      id: posts[0]?.id,
      type: "run.completed",
      data: {
        environment: { alias: "alpha", id: simEvents.env.environmentId },
        project: { id: PROJECT, title: PROJECT_TITLE },
        thread: { id: threadId, title: "Fix the parser" },
        run: { id: runId, status: "completed" },
        state: "completed",
      },
    });
    expect(event?.data.occurredAt).toEqual(expect.any(String));
    expect(receiver.posts.every((post) => post.verified)).toBe(true);
    expect(receiver.acceptedOfType("run.completed").map((e) => e.data.thread.id)).toEqual([
      threadId,
      marker.threadId,
    ]);
    const status = await readOutboxStatus(stateDir);
    expect(status).toMatchObject({ pending: 0, delivered: 2, deadLetters: [] });
    expect(status.lastSuccessAt).toEqual(expect.any(String));
  });

  it("a question becomes thread.needs_input and an approval thread.needs_approval, with the request", async () => {
    await start();
    const asking = addThread(simEvents.env, "Asks");
    await startRun(simEvents.env, asking, { ask: true });
    const approving = addThread(simEvents.env, "Needs approval");
    await startRun(simEvents.env, approving, { approval: true });
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.accepted.size === 2);

    const [input] = receiver.acceptedOfType("thread.needs_input");
    expect(input?.data).toMatchObject({
      thread: { id: asking, title: "Asks" },
      run: { id: latestRun(simEvents.env, asking).id },
      state: "needs_intervention",
      request: { kind: "user_input", id: expect.any(String) },
    });
    const [approval] = receiver.acceptedOfType("thread.needs_approval");
    expect(approval?.data).toMatchObject({
      thread: { id: approving },
      request: { kind: "command", id: expect.any(String) },
    });
  });

  it("a waiting event links to its inbox item, and an answer given in T3 sends thread.request_resolved with the same link", async () => {
    const inboxOrigin = "https://t3c.example.com";
    await start({
      approvals: {
        inboxOrigin,
        // No gate feed in this test: a poll that waits until the service stops.
        read: (_after, signal) =>
          new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      },
    });
    const threadId = addThread(simEvents.env, "Needs approval");
    await startRun(simEvents.env, threadId, { approval: true });
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.acceptedOfType("thread.needs_approval").length === 1);
    const [waiting] = receiver.acceptedOfType("thread.needs_approval");
    const requestId = (waiting?.data.request as { id: string } | undefined)?.id ?? "";
    const link = `${inboxOrigin}/inbox#${inboxItemId(simEvents.env.environmentId, threadId, requestId)}`;
    expect(waiting?.data.link).toBe(link);

    // Answered in T3 itself: the row no longer waits, and the phone is told.
    const answered = await simEvents.env.model.callUnary("orchestration.dispatchCommand", {
      commandId: "answered-in-t3",
      type: "runtime-request.respond",
      threadId,
      requestId,
      decision: "accept",
    });
    expect(answered.kind).toBe("success");
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.acceptedOfType("thread.request_resolved").length === 1);
    const [resolved] = receiver.acceptedOfType("thread.request_resolved");
    expect(resolved?.data).toMatchObject({
      thread: { id: threadId },
      request: { id: requestId, kind: "command" },
      resolution: "answered",
      link,
    });
  });

  it("a request answered in T3 within the grace period is never pushed, nor its resolution; one answered after it is", async () => {
    // A grace period longer than the test: every waiting event stays held until its item ends.
    await start({ policy: { baseDelayMs: 20, maxDelayMs: 50, graceMs: 600_000 } });
    const quick = addThread(simEvents.env, "Answered at the desk");
    await startRun(simEvents.env, quick, { approval: true });
    simEvents.env.clock.advance(1_000);
    const requestId = await vi.waitFor(() => pendingRequestOf(quick));
    const answered = await simEvents.env.model.callUnary("orchestration.dispatchCommand", {
      commandId: "answered-within-grace",
      type: "runtime-request.respond",
      threadId: quick,
      requestId,
      decision: "accept",
    });
    expect(answered.kind).toBe("success");
    simEvents.env.clock.advance(1_000);
    // A run's end is never held: once it is delivered, both events of the request were derived.
    const marker = await completedRunOn("Marker after the answer");
    await receiver.until(() =>
      receiver.acceptedOfType("run.completed").some((event) => event.data.thread.id === marker.threadId),
    );
    await vi.waitFor(async () => expect((await readOutboxStatus(stateDir)).endedWithinGrace).toBe(2));
    expect(receiver.acceptedOfType("thread.needs_approval")).toEqual([]);
    expect(receiver.acceptedOfType("thread.request_resolved")).toEqual([]);
    const status = await readOutboxStatus(stateDir);
    // Only run ends went out: the answered run's and the marker's.
    expect(status).toMatchObject({ pending: 0, endedWithinGrace: 2, delivered: 2 });
    expect(new Set([...receiver.accepted.values()].map((event) => event.type))).toEqual(
      new Set(["run.completed"]),
    );

    // Restarted with no grace, nothing of that request goes out after all; a new request does.
    await service?.stop();
    service = undefined;
    await start();
    const later = addThread(simEvents.env, "Still waiting");
    await startRun(simEvents.env, later, { approval: true });
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.acceptedOfType("thread.needs_approval").length === 1);
    expect(receiver.acceptedOfType("thread.needs_approval")[0]?.data.thread.id).toBe(later);
  });

  it("a secret the agent asks for becomes one thread.needs_secret, with the request and no value", async () => {
    await start();
    const threadId = addThread(simEvents.env, "Needs a token");
    const requestId = simEvents.env.model.requestSecret(threadId, { name: "GITHUB_TOKEN" });
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.acceptedOfType("thread.needs_secret").length === 1);
    const [secret] = receiver.acceptedOfType("thread.needs_secret");
    expect(secret?.data).toMatchObject({
      thread: { id: threadId, title: "Needs a token" },
      state: "needs_intervention",
      request: { id: requestId, kind: "secret_request", createdAt: expect.any(String) },
    });
    // Answered in T3's app: the request leaves the row and no second event is derived from it.
    simEvents.env.model.answerSecretRequest(threadId, requestId, "saved");
    simEvents.env.clock.advance(1_000);
    const marker = await completedRunOn("Marker");
    await receiver.until(() =>
      receiver.acceptedOfType("run.completed").some((e) => e.data.thread.id === marker.threadId),
    );
    expect(receiver.acceptedOfType("thread.needs_secret")).toHaveLength(1);
  });

  it("events of a project outside allowedProjects or outside the filters are not sent", async () => {
    await start({ filters: { types: ["run.failed"] } });
    const failing = addThread(simEvents.env, "Fails");
    await startRun(simEvents.env, failing, { outcome: "fail", failure: { message: "provider down" } });
    await completedRunOn("Completes"); // filtered out by type
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.accepted.size === 1);
    const [failed] = [...receiver.accepted.values()];
    expect(failed).toMatchObject({
      type: "run.failed",
      data: { thread: { id: failing }, error: "provider down" },
    });
    expect(receiver.posts).toHaveLength(1);
  });

  it("the read config's allowedProjects bound the events whatever the filters", async () => {
    const restricted = {
      ...simEvents.config,
      environments: simEvents.config.environments.map((e) => ({ ...e, allowedProjects: [PROJECT] })),
    };
    await start({ config: restricted });
    const hidden = await completedRunOn("Hidden", OTHER_PROJECT);
    const shown = await completedRunOn("Shown");
    await receiver.until(() => receiver.accepted.size === 1);
    const ids = [...receiver.accepted.values()].map((event) => event.data.thread.id);
    expect(ids).toEqual([shown.threadId]);
    expect(ids).not.toContain(hidden.threadId);
  });

  it("a project under the read config's allowedProjectRoots is followed; one there through a symlink out of it is not", async () => {
    const folders = await realpath(await mkdtemp(path.join(os.tmpdir(), "t3-events-roots-")));
    try {
      const root = path.join(folders, "work");
      await mkdir(path.join(root, "made"), { recursive: true });
      await mkdir(path.join(folders, "elsewhere"));
      await symlink(path.join(folders, "elsewhere"), path.join(root, "escape"));
      simEvents.env.model.addProject({
        id: "project-made",
        title: "made",
        workspaceRoot: path.join(root, "made"),
      });
      simEvents.env.model.addProject({
        id: "project-escape",
        title: "escape",
        workspaceRoot: path.join(root, "escape"),
      });
      const byFolder = {
        ...simEvents.config,
        environments: simEvents.config.environments.map((e) => ({
          ...e,
          allowedProjects: [],
          allowedProjectRoots: [root],
        })),
      };
      await start({ config: byFolder });
      const escaped = await completedRunOn("Through the link", "project-escape");
      const named = await completedRunOn("Not under the folder");
      const made = await completedRunOn("Under the folder", "project-made");
      await receiver.until(() => receiver.accepted.size === 1);
      const ids = [...receiver.accepted.values()].map((event) => event.data.thread.id);
      expect(ids).toEqual([made.threadId]);
      expect(ids).not.toContain(escaped.threadId);
      expect(ids).not.toContain(named.threadId);
    } finally {
      await rm(folders, { recursive: true, force: true });
    }
  });

  it("with the receiver down (connection refused), the event is delivered once it is back", async () => {
    await receiver.stop();
    await start();
    const { threadId } = await completedRunOn("While down");
    await logged(/delivery of msg_\w+ failed \(ECONNREFUSED\)/);
    await receiver.start();
    await receiver.until(() => receiver.accepted.size === 1);
    expect([...receiver.accepted.values()][0]?.data.thread.id).toBe(threadId);
  });

  it("with the receiver answering 500, the same id is retried until it is accepted", async () => {
    receiver.mode = "fail";
    await start();
    await completedRunOn("Flaky receiver");
    await receiver.until(() => receiver.posts.length >= 2);
    receiver.mode = "accept";
    await receiver.until(() => receiver.accepted.size === 1);
    expect(new Set(receiver.posts.map((post) => post.id)).size).toBe(1);
    expect(receiver.posts.every((post) => post.verified)).toBe(true);
  });

  it("a receiver whose 2xx answer never ends is read only up to the cap: the event counts as delivered at once", async () => {
    receiver.mode = "endless";
    // A deadline far past the test's own: without the cap, the read would wait for it.
    await start({ policy: { baseDelayMs: 20, maxDelayMs: 50, requestTimeoutMs: 600_000, graceMs: 0 } });
    await completedRunOn("Endless answer");
    await receiver.until(() => receiver.accepted.size === 1);
    const [id] = [...receiver.accepted.keys()];
    expect(await logged(new RegExp(`delivered ${id} \\(run\\.completed\\) after 1 attempt`))).toBeDefined();
    expect(receiver.posts).toHaveLength(1);
  });

  it("exhausted attempts make a dead letter; retry moves it back and it is delivered", async () => {
    receiver.mode = "fail";
    await start({ policy: { baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 2, graceMs: 0 } });
    await completedRunOn("Dead letter");
    await logged(/is a dead letter after 2 attempts \(max_attempts/);
    const status = await readOutboxStatus(stateDir);
    expect(status.pending).toBe(0);
    expect(status.deadLetters).toHaveLength(1);
    const [dead] = status.deadLetters;
    expect(dead).toMatchObject({
      type: "run.completed",
      attempts: 2,
      reason: "max_attempts",
      lastError: "HTTP 500",
    });

    receiver.mode = "accept";
    await retryDeadLetter(stateDir, dead?.id ?? "", new Date().toISOString());
    await receiver.until(() => receiver.accepted.has(dead?.id ?? ""));
    await logged(new RegExp(`delivered ${dead?.id}`));
    expect(await readOutboxStatus(stateDir)).toMatchObject({ pending: 0, delivered: 1, deadLetters: [] });
  });

  it("after a restart, the transitions that happened while it was down are sent, runs the shell no longer shows included", async () => {
    await start();
    const threadId = addThread(simEvents.env, "Busy while down");
    await startRun(simEvents.env, threadId, { outcome: "hang" });
    simEvents.env.clock.advance(100);
    await logged(/following "alpha"/);
    await service?.stop();
    service = undefined;

    // While down: the hanging run is interrupted, a second run completes, a third asks a question.
    const first = latestRun(simEvents.env, threadId).id;
    const { randomUUID } = await import("node:crypto");
    await simEvents.env.model.callUnary("orchestration.dispatchCommand", {
      commandId: randomUUID(),
      type: "run.interrupt",
      threadId,
      runId: first,
      createdBy: "user",
    });
    simEvents.env.clock.advance(1_000);
    await startRun(simEvents.env, threadId, { reply: "second" });
    simEvents.env.clock.advance(1_000);
    const second = latestRun(simEvents.env, threadId).id;
    await startRun(simEvents.env, threadId, { ask: true });
    simEvents.env.clock.advance(1_000);
    const third = latestRun(simEvents.env, threadId).id;
    expect(new Set([first, second, third]).size).toBe(3);

    const ready = await start();
    expect(ready.baseline).toBe(false);
    await receiver.until(() => receiver.accepted.size === 3);
    const seen = [...receiver.accepted.values()].map((event) => [event.type, event.data.run.id]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ["run.interrupted", first],
        ["run.completed", second],
        ["thread.needs_input", third],
      ]),
    );
  });

  it("as a host's background service it follows the host's own connections and mirrors and leaves them open", async () => {
    const { EnvironmentRegistry, READ_SCOPES } = await import("@t3-connector/core/environments");
    const { ShellMirrors } = await import("@t3-connector/core/mirror");
    const registry = new EnvironmentRegistry({
      environments: simEvents.config.environments,
      requiredScopes: READ_SCOPES,
    });
    const mirrors = new ShellMirrors();
    let onReady!: () => void;
    const ready = new Promise<void>((resolve) => {
      onReady = resolve;
    });
    const background = eventsBackgroundService(
      { hookUrl: receiver.url, secret, stateDir, log, onReady },
      { config: simEvents.config, registry, mirrors },
    );
    expect(background.name).toBe("events");
    await background.start();
    await ready;
    const { threadId } = await completedRunOn("Inside serve --http");
    await receiver.until(() => receiver.accepted.size === 1);
    expect([...receiver.accepted.values()][0]?.data.thread.id).toBe(threadId);
    await background.stop();
    // The host's mirror is the one the events followed, and it is still serving.
    const connection = await registry.resolve("alpha").connect();
    expect(mirrors.peek(connection)?.ready).toBe(true);
    mirrors.close();
    await registry.close();
  });

  it("a failed outbox write leaves the transition unconsumed: it is compared again and delivered under its one id", async () => {
    const nodeFs = await import("node:fs/promises");
    let failuresLeft = 1;
    const failingFs = {
      ...nodeFs,
      open: ((file: string, ...rest: unknown[]) => {
        if (failuresLeft > 0 && String(file).includes(`${path.sep}pending${path.sep}.msg_`)) {
          failuresLeft -= 1;
          return Promise.reject(Object.assign(new Error("I/O error"), { code: "EIO" }));
        }
        return (nodeFs.open as (...args: unknown[]) => unknown)(file, ...rest);
      }) as typeof nodeFs.open,
    };
    // The comparison is made again after the retry delay, narrowed from 2 s: the log lines, not
    // the delay, say when each step happened.
    await start({ fs: failingFs, retryDelayMs: 20 });
    const { threadId } = await completedRunOn("Disk hiccup");
    await logged(/thread [\w-]+ not recorded: the events outbox could not enqueue an event \(EIO\)/);
    await logged(/delivered msg_/);
    expect(failuresLeft).toBe(0);
    const ids = new Set(
      receiver.posts.filter((post) => post.event?.data.thread.id === threadId).map((p) => p.id),
    );
    expect(ids.size).toBe(1);
    expect(receiver.acceptedOfType("run.completed")).toHaveLength(1);
    expect(await readOutboxStatus(stateDir)).toMatchObject({ pending: 0, delivered: 1 });
  });

  it("refuses a second service on the same state directory, and a hook URL or secret it cannot use, before opening anything", async () => {
    await start();
    await expect(
      startEventsService({ config: simEvents.config, hookUrl: receiver.url, secret, stateDir, log }),
    ).rejects.toThrow(/already uses/);
    await expect(
      startEventsService({
        config: simEvents.config,
        hookUrl: "ftp://x/hook",
        secret,
        stateDir: `${stateDir}-2`,
        log,
      }),
    ).rejects.toThrow(/http or https/);
    await expect(
      startEventsService({
        config: simEvents.config,
        hookUrl: receiver.url,
        secret: "nope",
        stateDir: `${stateDir}-3`,
        log,
      }),
    ).rejects.toThrow(/whsec_/);
    const { stat } = await import("node:fs/promises");
    await expect(stat(`${stateDir}-2`)).rejects.toThrow(/ENOENT/);
  });

  it("a queued run behind a running one: both ends are sent, once each, even when one row shows the first ending and the second starting", async () => {
    await start();
    const threadId = addThread(simEvents.env, "Queue");
    await startRun(simEvents.env, threadId, { replyDelayMs: 200, reply: "first" });
    simEvents.env.clock.advance(20);
    const first = latestRun(simEvents.env, threadId).id;
    await startRun(simEvents.env, threadId, { reply: "second" }); // queued behind the first
    const second = latestRun(simEvents.env, threadId).id;
    expect(second).not.toBe(first);
    simEvents.env.clock.advance(2_000); // the first ends, the second starts and ends, in one step
    await receiver.until(() => receiver.acceptedOfType("run.completed").length === 2);
    const runs = receiver.acceptedOfType("run.completed").map((event) => event.data.run.id);
    expect(runs.sort()).toEqual([first, second].sort());
    const ids = new Set(receiver.posts.map((post) => post.id));
    expect(ids.size).toBe(2);
  });
});
