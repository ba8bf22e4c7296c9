import { describe, expect, it } from "vitest";
import { type ActionId, deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { HINT_AFTER_SEQUENCE, HINT_THREADS } from "../../src/dispatch/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  useHarness,
} from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
let harness: Harness;

useHarness(
  {
    aliases: ["pin", "send", "launch", "delete", "unsent"],
    seed: (env) => env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  },
  (started) => {
    harness = started;
  },
  { reopenAndClearFaults: true },
);

interface Case {
  alias: string;
  action: ActionId;
  operationId: string;
  input: Record<string, unknown>;
  method: string;
}

const CASES: Case[] = [
  {
    alias: "pin",
    action: "thread.pin",
    operationId: "op-pin",
    input: { threadId: T },
    method: "command_event_in_thread",
  },
  {
    alias: "send",
    action: "thread.send",
    operationId: "op-send",
    input: { threadId: T, text: "Go on.", clientRequestId: "op-send", delivery: "start_immediately" },
    method: "message_in_projection",
  },
  {
    alias: "launch",
    action: "thread.launch",
    operationId: "op-launch",
    input: {
      projectId: SAMPLE_IDS.projectId,
      title: "launched over a lost socket",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
      workspaceStrategy: { type: "root" },
    },
    method: "launched_thread_in_shell",
  },
  {
    alias: "delete",
    action: "thread.delete",
    operationId: "op-delete",
    input: { threadId: T },
    method: "deleted_thread_absent",
  },
];

describe("a socket lost after the send", () => {
  it.each(CASES)(
    "$action stays uncertain; a repeat settles it by reading T3 and never sends it again",
    async (c) => {
      const env = harness.env(c.alias);
      const before = env.model.receivedCommands.length;
      const write = () =>
        harness.dispatcher.dispatch({
          leaseId: LEASE_ID,
          environment: c.alias,
          operationId: c.operationId,
          action: c.action,
          input: c.input,
        });
      const key = harness.dispatcher.operationKey(c.alias, c.operationId);
      const ids = deriveIds(
        key,
        c.action,
        c.action === "thread.send" ? { clientRequestId: c.operationId } : {},
      );
      env.faults.set({ dropSocketAfterDispatch: true });

      const lost = await dispatchFailure(write());
      expect(lost.code).toBe("reconciliation_required");
      expect(lost.details).toMatchObject({ state: "uncertain", replayed: false });
      expect(harness.lease.uncertainSends.map((event) => event.operationId)).toContain(c.operationId);
      expect(harness.lease.open).toBe(false);
      const record = await harness.journal.get(key);
      expect(record).toMatchObject({ state: "uncertain", error: { code: "connection_lost" } });
      expect(record?.derivedIds).toMatchObject({ commandId: ids.commandId });
      // T3 did apply it: the answer was what got lost.
      expect(commandsSince(env, before).map((command) => command.commandId)).toEqual([ids.commandId]);

      harness.lease.open = true;
      env.faults.clear();
      // The repeat settles it: T3 shows the effect, so nothing is sent again.
      const retry = await write();
      expect(retry).toMatchObject({ state: "completed", replayed: true, reconciled: true });
      expect(harness.framesFor(ids.commandId)).toBe(1);
      const settled = await harness.journal.get(key);
      expect(settled).toMatchObject({ state: "completed", reconciledAt: expect.any(Number) });

      const reconciled = await harness.dispatcher.reconcile(key);
      expect(reconciled).toMatchObject({ state: "completed", settled: false, resend: null });
      const after = await write();
      expect(after).toMatchObject({ state: "completed", replayed: true });
      expect(harness.framesFor(ids.commandId)).toBe(1);
      const receipt = settled?.receipt ?? {};
      expect(receipt.observed).toBe(c.method);
      if (c.action === "thread.pin") expect(receipt.sequence).toBe(commandsSince(env, before)[0]?.sequence);
      if (c.action === "thread.send") expect(receipt.messageId).toBe(ids.messageId);
      if (c.action === "thread.launch") expect(receipt.threadId).toBe(ids.threadId);
    },
  );
});

describe("a lease under which a send was lost", () => {
  it("sends nothing more from that instant, before the gate has read the outcome and ended it", async () => {
    const env = harness.env("pin");
    // Facts whose signal the gate never aborts here: as when two writes of one client are in
    // flight when the first send's answer is lost, and the gate has not read that outcome yet.
    const open = harness.lease.facts(LEASE_ID);
    if (open === null) throw new Error("the test lease is not open");
    const facts = { ...open, ended: new AbortController().signal };
    env.faults.set({ dropSocketAfterDispatch: true });
    const lost = await harness.dispatcher.dispatchOutcome({
      leaseId: LEASE_ID,
      lease: facts,
      environment: "pin",
      operationId: "op-lost-first",
      action: "thread.pin",
      input: { threadId: T },
    });
    expect(lost).toMatchObject({ state: "uncertain", endsLease: "uncertain_send" });
    env.faults.clear();
    const before = env.model.receivedCommands.length;
    const second = await harness.dispatcher.dispatchOutcome({
      leaseId: LEASE_ID,
      lease: facts,
      environment: "pin",
      operationId: "op-lost-second",
      action: "thread.unpin",
      input: { threadId: T },
    });
    expect(second.state).toBe("not_recorded");
    expect(second.state !== "completed" && (second.error as { code?: string }).code).toBe("lease_closed");
    expect(commandsSince(env, before)).toEqual([]);
    // The engine's own mark refused it: the signal the gate would abort still says open.
    expect(facts.ended.aborted).toBe(false);
  });
});

describe("reconciliation that cannot decide", () => {
  it("leaves a record uncertain, with the reason, when T3 shows no effect of the command", async () => {
    const env = harness.env("unsent");
    const reserved = await harness.journal.reserve({
      environmentId: env.environmentId,
      destination: `t3://${env.environmentId}`,
      caller: CHANNEL,
      operationId: "op-never-arrived",
      action: "thread.pin",
      input: { threadId: T },
    });
    const ids = deriveIds(reserved.record.key, "thread.pin");
    await harness.journal.markUncertain(reserved.record.key, {
      commandId: ids.commandId,
      [HINT_THREADS]: JSON.stringify([T]),
      [HINT_AFTER_SEQUENCE]: "0",
    });
    const before = env.model.receivedCommands.length;

    const outcome = await harness.dispatcher.reconcile(reserved.record.key);
    expect(outcome).toMatchObject({ state: "uncertain", settled: false, observation: { found: false } });
    expect(outcome.observation?.reason).toContain(`no event from command ${ids.commandId}`);
    expect(commandsSince(env, before)).toEqual([]);
    expect(harness.framesFor(ids.commandId)).toBe(0);
  });

  it("answers operation_unknown for a key the journal does not hold", async () => {
    const error = await dispatchFailure(harness.dispatcher.reconcile("0".repeat(64)));
    expect(error.code).toBe("not_found");
    expect(error.details).toMatchObject({ reason: "operation_unknown" });
  });
});
