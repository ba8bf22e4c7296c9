/**
 * The spawned `t3-connector events` process killed with SIGKILL mid-delivery and in the middle of
 * transitions: after a restart every transition reaches the receiver, which dedupes by
 * `webhook-id`, exactly once, and no transition is ever sent under two ids.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { writeTokenFile } from "@t3-connector/core/config";
import {
  addThread,
  latestRun,
  type SimEvents,
  startRun,
  startSimEvents,
} from "@t3-connector/test-support/sim-events";
import { bin } from "@t3-connector/test-support/spawned-serve";
import { newSecret, WebhookReceiver } from "@t3-connector/test-support/webhook-receiver";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";

let simEvents: SimEvents;
let receiver: WebhookReceiver;
let work: string;
let secretFile: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  simEvents = await startSimEvents();
  const secret = newSecret();
  receiver = new WebhookReceiver(secret);
  await receiver.start();
  work = await mkdtemp(path.join(os.tmpdir(), "t3-events-crash-"));
  secretFile = path.join(work, "hook.secret");
  await writeTokenFile(secretFile, secret);
});

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await receiver.stop();
  await simEvents.close();
  await rm(work, { recursive: true, force: true });
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

interface Spawned {
  child: ChildProcess;
  /** Resolves once a stderr line matches. */
  line(pattern: RegExp): Promise<string>;
  killed(): Promise<void>;
}

function spawnEvents(extra: readonly string[] = []): Spawned {
  const child = spawn(
    process.execPath,
    [
      bin,
      "events",
      "--hook-url",
      receiver.url,
      "--hook-secret-file",
      secretFile,
      "--state-dir",
      path.join(work, "state"),
      "--retry-base-ms",
      "20",
      // Every waiting event out as soon as it is derived: the grace period has its own tests.
      "--grace-seconds",
      "0",
      ...extra,
    ],
    {
      env: { ...process.env, T3_CONNECTOR_CONFIG: simEvents.simConfig.configPath },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    child,
    async line(pattern) {
      for (;;) {
        const found = lines.find((line) => pattern.test(line));
        if (found !== undefined) return found;
        if (child.exitCode !== null) throw new Error(`events exited ${child.exitCode}:\n${lines.join("\n")}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async killed() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Every (thread, run, type) the receiver accepted, with the ids it came under. */
function idsByTransition(): Map<string, Set<string>> {
  const byTransition = new Map<string, Set<string>>();
  for (const post of receiver.posts) {
    if (!post.verified || post.event === undefined) continue;
    const { data, type } = post.event;
    const key = `${data.thread.id}|${data.run.id}|${type}|${data.request?.id ?? ""}`;
    const ids = byTransition.get(key) ?? new Set<string>();
    ids.add(post.id);
    byTransition.set(key, ids);
  }
  return byTransition;
}

describe("t3-connector events killed with SIGKILL", () => {
  it("killed mid-delivery and during transitions, then restarted: every transition is delivered exactly once by id", async () => {
    const { env } = simEvents;
    let events = spawnEvents();
    await events.line(/following "alpha"/);

    // 1. Mid-delivery: the receiver has the POST, the sender dies before reading the answer.
    const first = addThread(env, "Killed mid-delivery");
    receiver.beforeAnswer = () => events.killed();
    await startRun(env, first, { reply: "one" });
    env.clock.advance(1_000);
    await receiver.until(() => receiver.posts.length === 1);
    await events.killed();
    receiver.beforeAnswer = undefined;

    // 2. While it is down, runs end: they are news on restart.
    const whileDown = [addThread(env, "Down A"), addThread(env, "Down B")];
    for (const threadId of whileDown) await startRun(env, threadId, { reply: "down" });
    env.clock.advance(1_000);

    events = spawnEvents();
    await events.line(/following "alpha"/);

    // 3. During transitions: many threads end at once and the process dies at the first POST,
    // with the others somewhere between derivation, the outbox and the last-seen state.
    const burst = Array.from({ length: 12 }, (_, index) => addThread(env, `Burst ${index}`));
    for (const [position, threadId] of burst.entries()) {
      await startRun(env, threadId, position % 3 === 0 ? { ask: true } : {});
    }
    const before = receiver.posts.length;
    receiver.beforeAnswer = (post) => (receiver.posts.indexOf(post) === before ? events.killed() : undefined);
    env.clock.advance(1_000);
    await receiver.until(() => receiver.posts.length > before);
    await events.killed();
    receiver.beforeAnswer = undefined;

    events = spawnEvents();
    await events.line(/following "alpha"/);

    const expected = new Set<string>();
    for (const threadId of [first, ...whileDown, ...burst]) {
      const run = latestRun(env, threadId);
      const shell = env.model.getThread(threadId)?.shell as { pendingRuntimeRequest?: { id: string } | null };
      const request = shell.pendingRuntimeRequest;
      expected.add(
        request
          ? `${threadId}|${run.id}|thread.needs_input|${request.id}`
          : `${threadId}|${run.id}|run.completed|`,
      );
    }
    await receiver.until(() => [...expected].every((key) => idsByTransition().has(key)));

    const delivered = idsByTransition();
    expect([...delivered.keys()].sort()).toEqual([...expected].sort());
    // No transition under two ids, no id for two transitions: distinct ids = transitions.
    for (const ids of delivered.values()) expect(ids.size).toBe(1);
    expect(receiver.accepted.size).toBe(expected.size);
    expect(receiver.posts.every((post) => post.verified)).toBe(true);
    // The first event was sent again after the kill (at-least-once), under the same id.
    const firstPosts = receiver.posts.filter((post) => post.event?.data.thread.id === first);
    expect(firstPosts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(firstPosts.map((post) => post.id)).size).toBe(1);
    await events.killed();
  }, 60_000);

  it("a dead letter is listed by `events status` and sent again by `events retry` while `events` runs", async () => {
    const { env } = simEvents;
    receiver.mode = "fail";
    const events = spawnEvents(["--max-attempts", "2"]);
    await events.line(/following "alpha"/);
    const threadId = addThread(env, "Dead then retried");
    await startRun(env, threadId, {});
    env.clock.advance(1_000);
    await events.line(/is a dead letter after 2 attempts/);

    const status = JSON.parse(await cli(["events", "status", "--state-dir", path.join(work, "state")])) as {
      pending: number;
      deadLetters: Array<{ id: string; type: string; lastError: string }>;
    };
    expect(status.pending).toBe(0);
    expect(status.deadLetters).toEqual([
      expect.objectContaining({ type: "run.completed", lastError: "HTTP 500" }),
    ]);
    const id = status.deadLetters[0]?.id ?? "";

    receiver.mode = "accept";
    expect(JSON.parse(await cli(["events", "retry", id, "--state-dir", path.join(work, "state")]))).toEqual({
      retried: id,
      type: "run.completed",
    });
    await events.line(new RegExp(`delivered ${id}`));
    expect(receiver.accepted.get(id)?.data.thread.id).toBe(threadId);
    const after = JSON.parse(await cli(["events", "status", "--state-dir", path.join(work, "state")]));
    expect(after).toMatchObject({ pending: 0, delivered: 1, deadLetters: [] });
    await events.killed();
  }, 60_000);
});

/** Runs a short `t3-connector` command and resolves with its stdout (rejects on a non-zero exit). */
async function cli(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`t3-connector ${args.join(" ")} exited ${code}: ${stderr}`);
  return stdout;
}
