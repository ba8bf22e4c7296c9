/**
 * kill -9 the built gate at each point of the write path, restart it, retry the same operationId
 * through the relay: T3 applied the command at most once, an acknowledged record survives, and an
 * uncertain one is settled (read T3, then the same journaled command under the same ids, which T3
 * applies at most once). See gate-child.mjs for the test-only parts.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { IDLE_THREAD, type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CrashPoint } from "../../src/process/index.js";
import { type GateChild, GateProcesses, titleWrite, writeGateConfig } from "./support/gate-process.js";
import { runWriteCli } from "./support/journal-scenarios.js";

let world: SimWorld;
let configPath: string;
let gates: GateProcesses;

beforeAll(async () => {
  world = await startSimWorld(["alpha"]);
  configPath = join(world.root, "write.json");
  await writeGateConfig(world, configPath);
  gates = new GateProcesses(world, configPath);
}, 180_000);

afterAll(async () => {
  gates?.killAll();
  await world?.close();
});

type Child = GateChild;
const startChild = (crashAt?: CrashPoint, stderr: string[] = []): Promise<Child> =>
  gates.start(crashAt, stderr);
const relay = (port: number, body: unknown) => gates.relay(port, body);
const title = titleWrite;
const commandsFor = (operationId: string) => gates.commandsFor(operationId);

/**
 * `t3-connector-write reconcile --all-uncertain --json`, run the way a person runs it; `--resend`
 * (a stopped gate only) prints what it would send on stderr first (ADR 0042).
 */
async function reconcileAll(
  extra: readonly string[] = [],
): Promise<{ via: string; results: Record<string, unknown>[] }> {
  const { stdout, stderr } = await runWriteCli(configPath, [
    "reconcile",
    "--all-uncertain",
    "--json",
    ...extra,
  ]);
  if (extra.includes("--resend")) expect(stderr).toMatch(/^(reconcile --resend: .*\n)*$/);
  else expect(stderr).toBe("");
  return JSON.parse(stdout) as { via: string; results: Record<string, unknown>[] };
}

/**
 * Resolves once the gate's start-up lines are in: every line is written (pipes are synchronous on
 * Linux) before the ready line on stdout, and one read takes what the pipe holds.
 */
function startupLines(child: ChildProcess, stderr: string[]): Promise<string> {
  const done = () => stderr.join("").includes("enrollment code");
  if (done()) return Promise.resolve(stderr.join(""));
  return new Promise((resolve) => {
    const onData = () => {
      if (!done()) return;
      child.stderr?.off("data", onData);
      setImmediate(() => resolve(stderr.join("")));
    };
    child.stderr?.on("data", onData);
  });
}

/**
 * Kills the gate at `point` during one write. Before the send, and right after it, the caller
 * never gets an answer; once `completed` is durable it may have (the answer does not wait for
 * that write, ADR 0062).
 */
async function crashAt(
  point: Exclude<CrashPoint, "answered_before_completed">,
  operationId: string,
): Promise<void> {
  const doomed = await startChild(point);
  const answer = relay(doomed.port, title(doomed.leaseId, operationId)).then(
    () => "answered",
    () => "connection lost",
  );
  expect(await doomed.exited).toBe("SIGKILL");
  if (point === "after_completed") expect(["answered", "connection lost"]).toContain(await answer);
  else expect(await answer).toBe("connection lost");
}

describe("kill -9 the gate during a write, restart, retry the same operationId", () => {
  it("after reserve: the preparing record was unsent; the retry sends it once", async () => {
    await crashAt("after_reserve", "op-crash-reserve");
    expect(commandsFor("op-crash-reserve")).toBe(0);
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-reserve"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: false });
    const again = await relay(gate.port, title(gate.leaseId, "op-crash-reserve"));
    expect(again.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-reserve")).toBe(1);
    gate.process.kill("SIGTERM");
    expect(await gate.exited).toBe(0);
  });

  it("after uncertain: nothing was sent; reconcile reads only, --resend sends it once (completed), a second changes nothing", async () => {
    await crashAt("after_uncertain", "op-crash-uncertain");
    expect(commandsFor("op-crash-uncertain")).toBe(0);
    // No gate runs: the CLI takes the journal (the dead gate's lock is provably stale).
    const read = await reconcileAll();
    expect(read.results).toEqual([
      expect.objectContaining({ operationId: "op-crash-uncertain", state: "uncertain", resent: null }),
    ]);
    expect(commandsFor("op-crash-uncertain")).toBe(0);
    const first = await reconcileAll(["--resend"]);
    expect(first).toMatchObject({
      via: "journal",
      results: [
        {
          operationId: "op-crash-uncertain",
          state: "completed",
          settled: true,
          found: false,
          resent: "receipt",
        },
      ],
    });
    expect(commandsFor("op-crash-uncertain")).toBe(1);
    const second = await reconcileAll();
    expect(second.results).toEqual([]);
    expect(commandsFor("op-crash-uncertain")).toBe(1);

    const stderr: string[] = [];
    const gate = await startChild(undefined, stderr);
    expect(await startupLines(gate.process, stderr)).not.toContain("open write(s)");
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-uncertain"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-uncertain")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after uncertain, restarted: the gate only reads at start-up (no lease), and the client's retry under its lease sends it once", async () => {
    await crashAt("after_uncertain", "op-crash-uncertain-start");
    expect(commandsFor("op-crash-uncertain-start")).toBe(0);
    const stderr: string[] = [];
    const gate = await startChild(undefined, stderr);
    const lines = await startupLines(gate.process, stderr);
    expect(lines).toContain("settled 0 of 1 uncertain write(s) at start (0 completed, 0 refused)");
    expect(lines).toContain("journal holds 1 open write(s)");
    expect(commandsFor("op-crash-uncertain-start")).toBe(0);
    const reconciled = await relay(gate.port, {
      op: "reconcile",
      environment: "alpha",
      operationId: "op-crash-uncertain-start",
    });
    expect(reconciled.body).toMatchObject({ state: "uncertain", settled: false, resend: { sent: false } });
    expect(commandsFor("op-crash-uncertain-start")).toBe(0);
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-uncertain-start"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: false, reconciled: true });
    const again = await relay(gate.port, title(gate.leaseId, "op-crash-uncertain-start"));
    expect(again.body).toMatchObject({ state: "completed", replayed: true });
    expect((await reconcileAll()).results).toEqual([]);
    expect(commandsFor("op-crash-uncertain-start")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after uncertain, a command T3 refuses before running it settles refused, not uncertain", async () => {
    const operationId = "op-crash-refused";
    const steerIdle = (leaseId: string) => ({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId,
      action: "thread.send",
      input: {
        threadId: IDLE_THREAD,
        text: "Steer an idle thread.",
        clientRequestId: operationId,
        delivery: "steer_active",
        targetRunId: "run-that-is-not-running",
      },
    });
    const doomed = await startChild("after_uncertain");
    const answer = relay(doomed.port, steerIdle(doomed.leaseId)).then(
      () => "answered",
      () => "connection lost",
    );
    expect(await doomed.exited).toBe("SIGKILL");
    expect(await answer).toBe("connection lost");
    const before = world.env("alpha").model.receivedCommands.length;
    const settled = await reconcileAll(["--resend"]);
    expect(settled.results).toEqual([
      expect.objectContaining({ operationId, state: "refused", settled: true, resent: "refused" }),
    ]);
    expect(settled.results[0]?.code).toMatch(/^t3_refused\//);
    expect(world.env("alpha").model.receivedCommands.length).toBe(before);
    const gate = await startChild();
    const retry = await relay(gate.port, steerIdle(gate.leaseId));
    expect(retry.body).toMatchObject({ error: "t3_refused", details: { state: "refused", replayed: true } });
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after the send: T3 has it once; the restarted gate finds it by reading and never sends it again", async () => {
    await crashAt("after_send", "op-crash-send");
    expect(commandsFor("op-crash-send")).toBe(1);
    const stderr: string[] = [];
    const gate = await startChild(undefined, stderr);
    const lines = await startupLines(gate.process, stderr);
    expect(lines).toContain("settled 1 of 1 uncertain write(s) at start (1 completed, 0 refused)");
    const reconciled = await relay(gate.port, {
      op: "reconcile",
      environment: "alpha",
      operationId: "op-crash-send",
    });
    expect(reconciled.body).toMatchObject({ state: "completed", settled: false });
    const after = await relay(gate.port, title(gate.leaseId, "op-crash-send"));
    expect(after.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-send")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("answered before completed reached the disk: the restarted gate reads T3, finds it, never sends it again", async () => {
    const doomed = await startChild("answered_before_completed");
    const answered = await relay(doomed.port, title(doomed.leaseId, "op-crash-answered"));
    // The caller has the truth: T3 acknowledged the one send.
    expect(answered.body).toMatchObject({ state: "completed", replayed: false });
    expect(commandsFor("op-crash-answered")).toBe(1);
    doomed.process.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");
    // On disk the record is still `uncertain` (never `completed`): the reading CLI says so.
    const read = await reconcileAll();
    expect(read.results).toEqual([
      expect.objectContaining({ operationId: "op-crash-answered", state: "completed", settled: true }),
    ]);
    expect(commandsFor("op-crash-answered")).toBe(1);
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-answered"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-answered")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("answered before completed reached the disk, restarted: the gate settles it at start by reading", async () => {
    const doomed = await startChild("answered_before_completed");
    const answered = await relay(doomed.port, title(doomed.leaseId, "op-crash-answered-start"));
    expect(answered.body).toMatchObject({ state: "completed", replayed: false });
    doomed.process.kill("SIGKILL");
    await doomed.exited;
    const stderr: string[] = [];
    const gate = await startChild(undefined, stderr);
    const lines = await startupLines(gate.process, stderr);
    expect(lines).toContain("settled 1 of 1 uncertain write(s) at start (1 completed, 0 refused)");
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-answered-start"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-answered-start")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after completed: the acknowledged record survives and the retry replays it", async () => {
    await crashAt("after_completed", "op-crash-completed");
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-completed"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: true });
    expect((retry.body as { receipt: unknown }).receipt).toHaveProperty("sequence");
    expect(commandsFor("op-crash-completed")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });
});
