/**
 * A message drives the thread's agent in the mode the thread already runs in, so the lease's
 * runtime ceiling caps that current mode too: under an `approval-required` lease, a message (or a
 * conditional send) to a thread running in `full-access` is refused `runtime_mode_above_lease`
 * before the journal reserve, naming the thread's mode and the ceiling; nothing reaches T3. So are
 * resuming a held queue and retrying a run's preparation, whose runs start in that mode (ADR 0036).
 */

import { randomUUID } from "node:crypto";
import { systemClock } from "@t3-connector/core";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ACTIONS, SAMPLE_IDS, type ThreadSendInput } from "../../src/actions/index.js";
import { LeaseRule } from "../../src/dispatch/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  leaseScope,
  startHarness,
} from "./support/harness.js";

const ALIAS = "modes";
const FULL = "thread-in-full-access";
const ASKING = "thread-asking-first";
const HELD_ASKING = "held-queue-asking-first";
const FAILED_ASKING = "preparation-failed-asking-first";

let harness: Harness;
let env: SimEnvironment;

beforeAll(async () => {
  harness = await startHarness({
    aliases: [ALIAS],
    seed: (seeded) => {
      const projectId = SAMPLE_IDS.projectId;
      seeded.model.addThread({ id: FULL, projectId, state: "completed", runtimeMode: "full-access" });
      seeded.model.addThread({ id: ASKING, projectId, state: "completed", runtimeMode: "approval-required" });
      seeded.model.addThread({
        id: HELD_ASKING,
        projectId,
        state: "queued",
        runtimeMode: "approval-required",
      });
      seeded.model.addThread({
        id: FAILED_ASKING,
        projectId,
        state: "preparation_failed",
        runtimeMode: "approval-required",
      });
    },
  });
  env = harness.env(ALIAS);
});

beforeEach(() => {
  const scope = leaseScope([{ alias: ALIAS, environmentId: env.environmentId }]);
  harness.lease.scope = { ...scope, runtimeMode: "approval-required" };
});

afterAll(async () => {
  await harness?.close();
});

function send(threadId: string, operationId: string): Promise<unknown> {
  const input: ThreadSendInput = {
    threadId,
    clientRequestId: operationId,
    text: "please run the tests",
    delivery: "start_immediately",
  };
  return harness.dispatcher.dispatch({
    leaseId: LEASE_ID,
    environment: ALIAS,
    operationId,
    action: "thread.send",
    input,
  });
}

describe("the runtime ceiling over a thread's current mode", () => {
  it("is declared by the actions that make the thread's agent run, from the catalogue", () => {
    const starting = ACTIONS.filter((entry) => entry.runEffect === "starts-run").map((entry) => entry.action);
    expect(starting).toEqual(expect.arrayContaining(["prepared-run.retry", "queue.resume", "thread.send"]));
  });

  it("refuses a message to a full-access thread under an approval-required lease, naming both, with nothing recorded or sent", async () => {
    const before = env.model.receivedCommands.length;
    const refused = await dispatchFailure(send(FULL, "op-mode-full"));
    expect(refused.code).toBe("runtime_mode_above_lease");
    expect(refused.message).toContain(`thread ${FULL}, which runs in full-access`);
    expect(refused.message).toContain("ceiling approval-required");
    expect(refused.message).toContain("Nothing was sent.");
    expect(refused.details).toMatchObject({
      stage: "scope",
      recorded: false,
      threadRuntimeMode: "full-access",
      ceiling: "approval-required",
    });
    expect(commandsSince(env, before)).toEqual([]);
    expect(await harness.journal.get(harness.dispatcher.operationKey(ALIAS, "op-mode-full"))).toBeUndefined();
  });

  it("sends a message to a thread within the ceiling, and to the same full-access thread under a full-access lease", async () => {
    const before = env.model.receivedCommands.length;
    await expect(send(ASKING, "op-mode-asking")).resolves.toMatchObject({ state: "completed" });
    harness.lease.scope = { ...harness.lease.scope, runtimeMode: "full-access" };
    await expect(send(FULL, "op-mode-full-allowed")).resolves.toMatchObject({ state: "completed" });
    expect(commandsSince(env, before).map((command) => (command as { type?: string }).type)).toEqual([
      "message.dispatch",
      "message.dispatch",
    ]);
  });

  it("refuses a conditional send to a full-access thread before its model step, so nothing at all is sent", async () => {
    const before = env.model.receivedCommands.length;
    const latestRunId = env.model.getThread(FULL)?.shell.latestRunId;
    const refusal = await harness.lease
      .conditionalSend(
        {
          dispatcher: harness.dispatcher,
          journal: harness.journal,
          registry: harness.registry,
          channel: CHANNEL,
          clock: systemClock,
          leases: new LeaseRule(systemClock),
        },
        {
          leaseId: LEASE_ID,
          environment: ALIAS,
          operationId: "op-mode-conditional",
          input: {
            threadId: FULL,
            clientRequestId: "op-mode-conditional",
            afterRunId: latestRunId,
            modelSelection: { instanceId: "codex", model: "gpt-5.6-luna" },
            text: "then write the changelog",
          },
        },
      )
      .then(
        () => null,
        (error: unknown) => error as { code?: string; message?: string },
      );
    expect(refusal?.code).toBe("runtime_mode_above_lease");
    expect(refusal?.message).toContain("runs in full-access");
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("refuses resuming the queue and retrying a preparation of a full-access thread, with nothing recorded or sent", async () => {
    const before = env.model.receivedCommands.length;
    const writes = [
      { action: "queue.resume", operationId: "op-mode-resume", input: { threadId: FULL } },
      {
        action: "prepared-run.retry",
        operationId: "op-mode-retry",
        input: { threadId: FULL, runId: SAMPLE_IDS.runId },
      },
    ] as const;
    for (const write of writes) {
      const refused = await dispatchFailure(
        harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment: ALIAS, ...write }),
      );
      expect(refused.code, write.action).toBe("runtime_mode_above_lease");
      expect(refused.message).toContain(
        `${write.action} would drive thread ${FULL}, which runs in full-access`,
      );
      expect(refused.details).toMatchObject({
        stage: "scope",
        recorded: false,
        threadRuntimeMode: "full-access",
      });
      const key = harness.dispatcher.operationKey(ALIAS, write.operationId);
      expect(await harness.journal.get(key)).toBeUndefined();
    }
    expect(commandsSince(env, before)).toEqual([]);
  });

  it("resumes a held queue and retries a preparation of threads within the ceiling", async () => {
    const heldRun = env.model.getThread(HELD_ASKING)?.shell.activeRunId;
    const hold = await env.model.callUnary("orchestration.dispatchCommand", {
      type: "run.interrupt",
      commandId: randomUUID(),
      threadId: HELD_ASKING,
      runId: heldRun,
      holdQueue: true,
    });
    expect(hold.kind).toBe("success");
    const failedRun = env.model.getThread(FAILED_ASKING)?.shell.latestRunId;
    const before = env.model.receivedCommands.length;
    const dispatch = (action: string, operationId: string, input: Record<string, unknown>) =>
      harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment: ALIAS, operationId, action, input });
    await expect(
      dispatch("queue.resume", "op-mode-resume-ok", { threadId: HELD_ASKING }),
    ).resolves.toMatchObject({
      state: "completed",
    });
    await expect(
      dispatch("prepared-run.retry", "op-mode-retry-ok", { threadId: FAILED_ASKING, runId: failedRun }),
    ).resolves.toMatchObject({ state: "completed" });
    expect(commandsSince(env, before).map((command) => (command as { type?: string }).type)).toEqual([
      "queue.resume",
      "prepared-run.retry",
    ]);
  });
});
