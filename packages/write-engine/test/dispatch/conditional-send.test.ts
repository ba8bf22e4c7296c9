/**
 * The conditional send against the simulator: "when run R ends, optionally switch
 * the model, then send", each step journaled as its own operation and sent at most once.
 */

import { systemClock } from "@t3-connector/core";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  conditionalSendInput,
  conditionalSendSteps,
  prepareAction,
  SAMPLE_IDS,
} from "../../src/actions/index.js";
import { derivedRecord } from "../../src/dispatch/derived-record.js";
import { type ConditionalSendDeps, type ConditionalSendResult, LeaseRule } from "../../src/dispatch/index.js";
import { journalCommandOf } from "../../src/dispatch/reconcile.js";
import { CHANNEL, commandsSince, type Harness, LEASE_ID, startHarness } from "./support/harness.js";

const ALIAS = "cond";
const ACTIVE = "thread-cond-active";
const RACED = "thread-cond-raced";
const SUPERSEDED = "thread-cond-superseded";
const FAILED_RUN = "thread-cond-failed-run";
const POLLED = "thread-cond-polled";
const LOST = "thread-cond-lost";
const BAD_MODEL = "thread-cond-bad-model";
const UNSENT = "thread-cond-unsent";
const NEW_MODEL = { instanceId: "codex", model: "gpt-5.6-luna" };

let harness: Harness;
let env: SimEnvironment;

beforeAll(async () => {
  harness = await startHarness({
    aliases: [ALIAS],
    clock: "real",
    seed: (seeded) => {
      const projectId = SAMPLE_IDS.projectId;
      seeded.model.addThread({ id: ACTIVE, projectId, state: "running" });
      seeded.model.addThread({ id: RACED, projectId, state: "completed" });
      seeded.model.addThread({ id: SUPERSEDED, projectId, state: "completed" });
      seeded.model.addThread({ id: FAILED_RUN, projectId, state: "failed" });
      seeded.model.addThread({ id: POLLED, projectId, state: "running" });
      seeded.model.addThread({ id: LOST, projectId, state: "completed" });
      seeded.model.addThread({ id: BAD_MODEL, projectId, state: "completed" });
      seeded.model.addThread({ id: UNSENT, projectId, state: "completed" });
    },
  });
  env = harness.env(ALIAS);
});

afterAll(async () => {
  await harness?.close();
});

function deps(extra: Partial<ConditionalSendDeps> = {}) {
  return {
    dispatcher: harness.dispatcher,
    journal: harness.journal,
    registry: harness.registry,
    channel: CHANNEL,
    clock: systemClock,
    leases: new LeaseRule(systemClock),
    ...extra,
  };
}

function shellOf(threadId: string) {
  const thread = env.model.getThread(threadId);
  if (thread === undefined) throw new Error(`no thread ${threadId}`);
  return thread.shell as {
    activeRunId?: string | null;
    latestRunId?: string | null;
    status: string;
    modelSelection?: unknown;
  };
}

function request(operationId: string, input: Record<string, unknown>) {
  return {
    leaseId: LEASE_ID,
    environment: ALIAS,
    operationId,
    input: { clientRequestId: operationId, ...input },
  };
}

function typesOf(commands: ReturnType<typeof commandsSince>): string[] {
  return commands.map((command) => String((command as { type?: unknown }).type));
}

async function stepState(operationId: string) {
  return (await harness.journal.get(harness.dispatcher.operationKey(ALIAS, operationId)))?.state;
}

describe("conditional send", () => {
  it("answers precondition_pending while run R is active, and sends once after it ended", async () => {
    const runId = shellOf(ACTIVE).activeRunId;
    expect(runId).toBeTruthy();
    const operationId = "op-cond-after-active";
    const body = request(operationId, {
      threadId: ACTIVE,
      afterRunId: runId,
      modelSelection: NEW_MODEL,
      text: "Now update the changelog.",
    });
    const before = env.model.receivedCommands.length;

    const pending = await harness.lease.conditionalSend(deps(), body);
    expect(pending).toMatchObject({ state: "precondition_pending", reason: "run_active", replayed: false });
    expect(commandsSince(env, before)).toEqual([]);
    expect(await stepState(`${operationId}:send`)).toBeUndefined();
    expect(await stepState(`${operationId}:model-selection`)).toBeUndefined();

    await harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: ALIAS,
      operationId: "op-cond-interrupt",
      action: "run.interrupt",
      input: { threadId: ACTIVE, runId },
    });
    expect(shellOf(ACTIVE).activeRunId ?? null).toBeNull();
    const afterInterrupt = env.model.receivedCommands.length;

    const done = await harness.lease.conditionalSend(deps(), body);
    expect(done).toMatchObject({ state: "completed", replayed: false, sent: true });
    expect(done.delivery).toMatchObject({ observed: true, deliveredAs: "started" });
    expect(typesOf(commandsSince(env, afterInterrupt))).toEqual([
      "thread.model-selection.set",
      "message.dispatch",
    ]);
    expect(shellOf(ACTIVE).modelSelection).toMatchObject(NEW_MODEL);
    expect(await stepState(`${operationId}:model-selection`)).toBe("completed");
    expect(await stepState(`${operationId}:send`)).toBe("completed");

    const repeated = await harness.lease.conditionalSend(deps(), body);
    expect(repeated).toMatchObject({
      state: "completed",
      replayed: true,
      delivery: { messageId: done.delivery?.messageId, runId: done.delivery?.runId },
    });
    expect(commandsSince(env, afterInterrupt)).toHaveLength(2);
  });

  it("refuses to send when another run starts between the check and the send", async () => {
    const runId = shellOf(RACED).latestRunId;
    const operationId = "op-cond-raced";
    const before = env.model.receivedCommands.length;
    let racer = 0;
    const result: ConditionalSendResult = await harness.lease.conditionalSend(
      deps({
        beforeSendCheck: async () => {
          racer += 1;
          // Another writer starts a run that keeps going, right after the first check passed.
          env.model.scriptNextRun(RACED, { outcome: "hang" });
          await harness.dispatcher.dispatch({
            leaseId: LEASE_ID,
            environment: ALIAS,
            operationId: "op-cond-racer",
            action: "thread.send",
            input: {
              threadId: RACED,
              clientRequestId: "op-cond-racer",
              text: "Another client's message.",
              delivery: "start_immediately",
            },
          });
        },
      }),
      request(operationId, { threadId: RACED, afterRunId: runId, modelSelection: NEW_MODEL, text: "Late." }),
    );
    expect(racer).toBe(1);
    expect(shellOf(RACED).activeRunId).toBeTruthy();
    expect(result).toMatchObject({
      state: "failed",
      failedStep: "send",
      failedOperationId: `${operationId}:send`,
      reason: "precondition_other_run_active",
      sent: false,
    });
    // The model step ran; the racer's send is the only message; ours was reserved and refused.
    expect(typesOf(commandsSince(env, before))).toEqual(["thread.model-selection.set", "message.dispatch"]);
    expect(await stepState(`${operationId}:send`)).toBe("refused");

    const replay = await harness.lease.conditionalSend(
      deps(),
      request(operationId, { threadId: RACED, afterRunId: runId, modelSelection: NEW_MODEL, text: "Late." }),
    );
    expect(replay).toMatchObject({
      state: "failed",
      reason: "precondition_other_run_active",
      replayed: true,
    });
    expect(commandsSince(env, before)).toHaveLength(2);

    // A direct thread.send under the closed step's operationId replays the refusal too.
    await expect(
      harness.dispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: ALIAS,
        operationId: `${operationId}:send`,
        action: "thread.send",
        input: {
          threadId: RACED,
          clientRequestId: `${operationId}:send`,
          text: "Late.",
          delivery: "start_immediately",
        },
      }),
    ).rejects.toMatchObject({ code: "guard_refused", details: { state: "refused", replayed: true } });
    expect(commandsSince(env, before)).toHaveLength(2);
  });

  it("answers precondition_failed for a run that is not the latest one, and nothing is sent", async () => {
    const operationId = "op-cond-superseded";
    const before = env.model.receivedCommands.length;
    const body = request(operationId, { threadId: SUPERSEDED, afterRunId: "run-long-gone", text: "Hello." });
    const result = await harness.lease.conditionalSend(deps(), body);
    expect(result).toMatchObject({ state: "precondition_failed", reason: "run_superseded", sent: false });
    expect(commandsSince(env, before)).toEqual([]);
    expect(await stepState(`${operationId}:send`)).toBe("refused");
    expect(await harness.lease.conditionalSend(deps(), body)).toMatchObject({
      state: "precondition_failed",
      replayed: true,
    });
  });

  it("treats a failed run as ended (a terminal status) and sends without a model step", async () => {
    const shell = shellOf(FAILED_RUN);
    expect(shell.status).toBe("failed");
    const operationId = "op-cond-after-failed";
    const before = env.model.receivedCommands.length;
    const result = await harness.lease.conditionalSend(
      deps(),
      request(operationId, { threadId: FAILED_RUN, afterRunId: shell.latestRunId, text: "Try again." }),
    );
    expect(result).toMatchObject({ state: "completed", sent: true });
    expect(typesOf(commandsSince(env, before))).toEqual(["message.dispatch"]);
    expect(await stepState(`${operationId}:model-selection`)).toBeUndefined();
  });

  it("refuses an input whose clientRequestId differs from the operationId, recording nothing", async () => {
    await expect(
      harness.lease.conditionalSend(deps(), {
        leaseId: LEASE_ID,
        environment: ALIAS,
        operationId: "op-cond-mismatch",
        input: { threadId: FAILED_RUN, clientRequestId: "other", afterRunId: "r", text: "x" },
      }),
    ).rejects.toMatchObject({ code: "invalid_input", details: { reason: "request_id_mismatch" } });
    expect(await stepState("op-cond-mismatch:send")).toBeUndefined();
  });

  it("polls within waitMs while run R is active and sends once it ended", async () => {
    const runId = shellOf(POLLED).activeRunId;
    const waits: number[] = [];
    const result = await harness.lease.conditionalSend(
      deps({
        // The injected wait is where the run ends: no timer runs in this test.
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length > 1) return;
          await harness.dispatcher.dispatch({
            leaseId: LEASE_ID,
            environment: ALIAS,
            operationId: "op-cond-polled-interrupt",
            action: "run.interrupt",
            input: { threadId: POLLED, runId },
          });
        },
      }),
      request("op-cond-polled", { threadId: POLLED, afterRunId: runId, text: "Go on.", waitMs: 5_000 }),
    );
    expect(waits).toEqual([500]);
    expect(result).toMatchObject({ state: "completed", sent: true });
  });

  it("fails at the model step when T3 does not offer the model, and sends nothing", async () => {
    const operationId = "op-cond-bad-model";
    const before = env.model.receivedCommands.length;
    const result = await harness.lease.conditionalSend(
      deps(),
      request(operationId, {
        threadId: BAD_MODEL,
        afterRunId: shellOf(BAD_MODEL).latestRunId,
        modelSelection: { instanceId: "codex", model: "gpt-no-such-model" },
        text: "Switch first.",
      }),
    );
    expect(result).toMatchObject({
      state: "failed",
      failedStep: "model-selection",
      failedOperationId: `${operationId}:model-selection`,
      reason: "dispatch_rejected",
      sent: false,
    });
    expect(commandsSince(env, before)).toEqual([]);
    expect(await stepState(`${operationId}:send`)).toBeUndefined();
  });

  it("says uncertain when the socket is lost after the send; the repeat settles it by reading, sending nothing", async () => {
    const operationId = "op-cond-lost";
    const body = request(operationId, {
      threadId: LOST,
      afterRunId: shellOf(LOST).latestRunId,
      text: "This one gets lost.",
    });
    const before = env.model.receivedCommands.length;
    env.faults.set({ dropSocketAfterDispatch: true });
    let lost: ConditionalSendResult;
    try {
      lost = await harness.lease.conditionalSend(deps(), body);
    } finally {
      env.faults.set({ dropSocketAfterDispatch: undefined });
      harness.lease.open = true;
    }
    expect(lost).toMatchObject({
      state: "uncertain",
      reason: "reconciliation_required",
      failedOperationId: `${operationId}:send`,
    });
    expect(typesOf(commandsSince(env, before))).toEqual(["message.dispatch"]);
    // The repeat settles the send step (T3 shows the message) without sending it again.
    expect(await harness.lease.conditionalSend(deps(), body)).toMatchObject({
      state: "completed",
      replayed: true,
      delivery: { observed: true },
    });
    const settled = await harness.dispatcher.reconcile(
      harness.dispatcher.operationKey(ALIAS, `${operationId}:send`),
    );
    expect(settled).toMatchObject({ state: "completed", settled: false });
    expect(await harness.lease.conditionalSend(deps(), body)).toMatchObject({
      state: "completed",
      replayed: true,
      delivery: { observed: true },
    });
    expect(commandsSince(env, before)).toHaveLength(1);
  });

  it("a send step left uncertain before it left the gate is settled by the repeat: sent once, completed", async () => {
    const operationId = "op-cond-unsent";
    const body = request(operationId, {
      threadId: UNSENT,
      afterRunId: shellOf(UNSENT).latestRunId,
      text: "Left behind by a killed gate.",
    });
    // What a gate killed between marking the send step uncertain and sending it leaves behind.
    const step = conditionalSendSteps(conditionalSendInput.parse(body.input)).find((s) => s.step === "send");
    if (step === undefined) throw new Error("no send step");
    const key = harness.dispatcher.operationKey(ALIAS, step.operationId);
    const prepared = prepareAction(step.action, step.input, key);
    await harness.journal.reserve({
      environmentId: env.environmentId,
      destination: `t3://${env.environmentId}`,
      caller: CHANNEL,
      operationId: step.operationId,
      action: step.action,
      input: prepared.input,
    });
    await harness.journal.markUncertain(
      key,
      derivedRecord(prepared.ids, [UNSENT], 0),
      journalCommandOf(prepared.payload),
    );
    const before = env.model.receivedCommands.length;

    expect(await harness.lease.conditionalSend(deps(), body)).toMatchObject({
      state: "completed",
      replayed: true,
      delivery: { observed: true, messageId: prepared.ids.messageId },
    });
    expect(typesOf(commandsSince(env, before))).toEqual(["message.dispatch"]);
    expect(await harness.lease.conditionalSend(deps(), body)).toMatchObject({
      state: "completed",
      replayed: true,
    });
    expect(commandsSince(env, before)).toHaveLength(1);
  });

  it("refuses a closed lease before reading or recording anything", async () => {
    harness.lease.open = false;
    try {
      await expect(
        harness.lease.conditionalSend(
          deps(),
          request("op-cond-closed", { threadId: LOST, afterRunId: "run-long-gone", text: "x" }),
        ),
      ).rejects.toMatchObject({ code: "lease_closed", details: { recorded: false } });
    } finally {
      harness.lease.open = true;
    }
    expect(await stepState("op-cond-closed:send")).toBeUndefined();
  });
});
