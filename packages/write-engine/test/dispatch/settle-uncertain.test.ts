/**
 * Settlement of uncertain writes (issue 16) and refusals that prove nothing ran (issue 8 item 2),
 * over a real simulator: a protocol-2 environment and a 0.0.31 one.
 */
import { describe, expect, it } from "vitest";
import { type ActionId, prepareAction, SAMPLE_IDS } from "../../src/actions/index.js";
import { derivedRecord } from "../../src/dispatch/derived-record.js";
import { createDispatcher } from "../../src/dispatch/index.js";
import { journalCommandOf } from "../../src/dispatch/reconcile.js";
import type { JournalCommand } from "../../src/journal/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  leaseScope,
  useHarness,
} from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
const OTHER = "thread-other-0001";
let harness: Harness;

useHarness(
  {
    aliases: ["p2", "old"],
    compat: { old: "0.0.31" },
    seed: (env) => {
      env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" });
      env.model.addThread({ id: OTHER, projectId: SAMPLE_IDS.projectId, state: "completed" });
    },
  },
  (started) => {
    harness = started;
  },
  { reopenAndClearFaults: true },
);

/**
 * What a gate killed between marking a write uncertain and sending it leaves behind: the record
 * `uncertain` with its derived ids and the exact command, and nothing at T3.
 */
async function uncertainUnsent(
  alias: string,
  operationId: string,
  action: ActionId,
  input: Record<string, unknown>,
  /** "none": the record format written before commands were journaled. */
  command?: ((built: JournalCommand) => JournalCommand) | "none",
) {
  const env = harness.env(alias);
  const reserved = await harness.journal.reserve({
    environmentId: env.environmentId,
    destination: `t3://${env.environmentId}`,
    caller: CHANNEL,
    operationId,
    action,
    input: prepareAction(action, input, harness.dispatcher.operationKey(alias, operationId)).input,
  });
  const key = reserved.record.key;
  const prepared = prepareAction(action, input, key);
  const built = journalCommandOf(prepared.payload);
  const ids = derivedRecord(prepared.ids, [T], 0);
  if (command === "none") await harness.journal.markUncertain(key, ids);
  else await harness.journal.markUncertain(key, ids, command === undefined ? built : command(built));
  return { key, ids: prepared.ids, env };
}

/** The caller's open lease, which covers every write of these tests (ADR 0042). */
const UNDER_LEASE = { leaseId: LEASE_ID };

const write = (alias: string, operationId: string, action: ActionId, input: Record<string, unknown>) =>
  harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment: alias, operationId, action, input });

describe("settling an uncertain write that never left the gate", () => {
  it("sends the journaled command once under the same ids: completed, applied once; again changes nothing", async () => {
    const { key, ids, env } = await uncertainUnsent("p2", "op-unsent-title", "thread.title", {
      threadId: T,
      title: "settled by a resend",
    });
    const before = env.model.receivedCommands.length;
    const first = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(first).toMatchObject({
      state: "completed",
      settled: true,
      observation: { found: false, conclusive: true },
      resend: { sent: true, answer: "receipt" },
    });
    expect(commandsSince(env, before).map((command) => command.commandId)).toEqual([ids.commandId]);
    expect(first.record.receipt?.sequence).toBe(commandsSince(env, before)[0]?.sequence);
    expect(first.record.command).toBeUndefined();

    const second = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(second).toMatchObject({ state: "completed", settled: false, resend: null });
    expect(harness.framesFor(ids.commandId)).toBe(1);
    const replay = await write("p2", "op-unsent-title", "thread.title", {
      threadId: T,
      title: "settled by a resend",
    });
    expect(replay).toMatchObject({ state: "completed", replayed: true });
    expect(harness.framesFor(ids.commandId)).toBe(1);
  });

  it("a client repeat of the operationId settles it instead of answering reconciliation_required", async () => {
    const input = { threadId: T };
    const { ids, env } = await uncertainUnsent("p2", "op-unsent-pin", "thread.pin", input);
    const before = env.model.receivedCommands.length;
    const repeat = await write("p2", "op-unsent-pin", "thread.pin", input);
    expect(repeat).toMatchObject({ state: "completed", replayed: false, reconciled: true });
    expect(commandsSince(env, before).map((command) => command.commandId)).toEqual([ids.commandId]);
    const again = await write("p2", "op-unsent-pin", "thread.pin", input);
    expect(again).toMatchObject({ state: "completed", replayed: true });
    expect(harness.framesFor(ids.commandId)).toBe(1);
  });

  it("a write T3 applied but whose answer was lost is found by reading, and never sent again", async () => {
    const env = harness.env("p2");
    env.faults.set({ dropSocketAfterDispatch: true });
    const input = { threadId: T };
    const lost = await dispatchFailure(write("p2", "op-lost-unpin", "thread.unpin", input));
    expect(lost.code).toBe("reconciliation_required");
    env.faults.clear();
    harness.lease.open = true;
    const repeat = await write("p2", "op-lost-unpin", "thread.unpin", input);
    expect(repeat).toMatchObject({ state: "completed", replayed: true, reconciled: true });
    const key = harness.dispatcher.operationKey("p2", "op-lost-unpin");
    const record = await harness.journal.get(key);
    expect(harness.framesFor(record?.derivedIds?.commandId ?? "")).toBe(1);
  });

  it("outside the resend window it reads only and stays uncertain, saying why", async () => {
    const { key, ids } = await uncertainUnsent("p2", "op-too-old", "thread.visit", {
      threadId: T,
      visitedAt: "2026-01-01T00:00:00.000Z",
    });
    const later = harness.lease.wrap(
      createDispatcher({
        registry: harness.registry,
        journal: harness.journal,
        clock: { now: () => Date.now() + 2 * 60 * 60_000, monotonic: () => performance.now() },
        channel: CHANNEL,
      }),
    );
    const outcome = await later.reconcile(key, UNDER_LEASE);
    expect(outcome).toMatchObject({ state: "uncertain", settled: false, resend: { sent: false } });
    expect(outcome.observation?.reason).toContain("older than the resend window");
    expect(harness.framesFor(ids.commandId)).toBe(0);
  });

  it("a record written before commands were journaled is read only; a client repeat supplies the command", async () => {
    const input = { threadId: T };
    const { key, ids, env } = await uncertainUnsent("p2", "op-legacy", "thread.settle", input, "none");
    const read = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(read).toMatchObject({ state: "uncertain", resend: { sent: false } });
    expect(read.observation?.reason).toContain(`no event from command ${ids.commandId}`);
    expect(read.observation?.reason).toContain("kept no command");
    const before = env.model.receivedCommands.length;
    const repeat = await write("p2", "op-legacy", "thread.settle", input);
    expect(repeat).toMatchObject({ state: "completed", replayed: false, reconciled: true });
    expect(commandsSince(env, before)).toHaveLength(1);
  });

  it("a conflict (the commandId already used on another thread) stays uncertain with the reason", async () => {
    const { key, ids } = await uncertainUnsent("p2", "op-conflict", "thread.mark-unread", { threadId: T });
    const rpc = await (await harness.registry.resolve("p2").connect()).rpc();
    await rpc.dispatchCommand({ type: "thread.mark-unread", commandId: ids.commandId, threadId: OTHER });
    const outcome = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(outcome).toMatchObject({
      state: "uncertain",
      settled: false,
      resend: { sent: true, answer: "conflict" },
    });
    expect(outcome.observation?.reason).toContain("conflicts");
    expect(outcome.record.error?.code).toBe("rpc_failure/conflict");
  });

  it("a typed refusal of the resend settles refused", async () => {
    const { key } = await uncertainUnsent(
      "p2",
      "op-refused-resend",
      "thread.unsnooze",
      { threadId: T },
      (built) => ({
        ...built,
        body: { ...built.body, threadId: "thread-that-does-not-exist" },
      }),
    );
    const outcome = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(outcome).toMatchObject({
      state: "refused",
      settled: true,
      resend: { sent: true, answer: "refused", code: "t3_refused" },
    });
    expect(outcome.record.error?.code).toBe("t3_refused/OrchestrationV2DispatchCommandError");
  });

  it("another defect answering the resend is decided by reading: no effect, so refused", async () => {
    const { key } = await uncertainUnsent(
      "p2",
      "op-defect-resend",
      "thread.unsettle",
      { threadId: T },
      (built) => ({
        ...built,
        body: { ...built.body, reason: 42 },
      }),
    );
    const outcome = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(outcome).toMatchObject({
      state: "refused",
      settled: true,
      observation: { found: false, conclusive: true },
      resend: { sent: true, answer: "defect", code: "protocol_error" },
    });
    expect(outcome.record.error?.code).toBe("t3_refused/Defect");
  });
});

describe("a refusal is a refusal: a 0.0.31 server's decode defect", () => {
  const pinReorder = { threadId: T, orderKey: "a0" };

  it("ends the write refused (action_unsupported), nothing applied, and a repeat replays it without sending", async () => {
    const env = harness.env("old");
    const before = env.model.receivedCommands.length;
    const refused = await dispatchFailure(write("old", "op-reorder", "thread.pin.reorder", pinReorder));
    expect(refused.code).toBe("action_unsupported");
    expect(refused.details).toMatchObject({
      state: "refused",
      sent: true,
      commandType: "thread.pin.reorder",
    });
    expect(refused.details?.acceptedCommandTypes).toHaveLength(37);
    expect(commandsSince(env, before)).toEqual([]);
    const key = harness.dispatcher.operationKey("old", "op-reorder");
    const record = await harness.journal.get(key);
    expect(record).toMatchObject({ state: "refused", error: { code: "action_unsupported" } });
    expect(harness.lease.open).toBe(true);

    const repeat = await dispatchFailure(write("old", "op-reorder", "thread.pin.reorder", pinReorder));
    expect(repeat.code).toBe("action_unsupported");
    expect(repeat.details).toMatchObject({ state: "refused", replayed: true });
    expect(harness.framesFor(record?.derivedIds?.commandId ?? "")).toBe(1);
  });

  it("settles a write stuck uncertain by earlier code (protocol_error, no command kept) as refused", async () => {
    const env = harness.env("old");
    const input = prepareAction("thread.pin.reorder", pinReorder, "k").input;
    const reserved = await harness.journal.reserve({
      environmentId: env.environmentId,
      destination: `t3://${env.environmentId}`,
      caller: CHANNEL,
      operationId: "op-stuck-reorder",
      action: "thread.pin.reorder",
      input,
    });
    const prepared = prepareAction("thread.pin.reorder", pinReorder, reserved.record.key);
    await harness.journal.markUncertain(reserved.record.key, derivedRecord(prepared.ids, [T], 0));
    // What earlier code recorded from the Die (the error's message carries the defect).
    const probe = await dispatchFailure(
      (await (await harness.registry.resolve("old").connect()).rpc()).dispatchCommand({
        type: "thread.pin.reorder",
        commandId: "probe-command",
        threadId: T,
        orderKey: "a0",
      }),
    );
    expect(probe.code).toBe("protocol_error");
    await harness.journal.recordError(reserved.record.key, { code: probe.code, message: probe.message });

    const outcome = await harness.dispatcher.reconcile(reserved.record.key, UNDER_LEASE);
    expect(outcome).toMatchObject({ state: "refused", settled: true });
    expect(outcome.record.error?.code).toBe("action_unsupported");
    expect(harness.framesFor(prepared.ids.commandId)).toBe(0);
  });

  it("the same action works on the protocol-2 environment of the same simulator", async () => {
    await write("p2", "op-pin-other-p2", "thread.pin", { threadId: OTHER });
    const done = await write("p2", "op-reorder-p2", "thread.pin.reorder", {
      threadId: OTHER,
      orderKey: "a0",
    });
    expect(done).toMatchObject({ state: "completed", replayed: false });
  });
});

describe("the first send answered with a defect that proves nothing", () => {
  it("reads the thread before deciding: the effect is there, so completed, never uncertain", async () => {
    const env = harness.env("p2");
    env.faults.set({ defectAfterDispatch: "the answer could not be encoded" });
    const before = env.model.receivedCommands.length;
    const done = await write("p2", "op-defect-applied", "thread.title", {
      threadId: T,
      title: "applied, then a Die",
    });
    expect(done).toMatchObject({ state: "completed", replayed: false, reconciled: true });
    expect(done.receipt).toMatchObject({ observed: "command_event_in_thread" });
    expect(commandsSince(env, before)).toHaveLength(1);
    const key = harness.dispatcher.operationKey("p2", "op-defect-applied");
    expect(await harness.journal.get(key)).toMatchObject({ state: "completed" });
    expect(harness.lease.open).toBe(true);
  });
});

describe("a resend needs the caller's lease to cover the write (ADR 0042)", () => {
  const title = { threadId: T, title: "never without a lease" };

  it("without a lease it reads only, sends nothing and says what stays uncertain", async () => {
    const { key, ids } = await uncertainUnsent("p2", "op-no-lease", "thread.title", title);
    const outcome = await harness.dispatcher.reconcile(key);
    expect(outcome).toMatchObject({ state: "uncertain", settled: false, resend: { sent: false } });
    expect(outcome.observation?.reason).toContain("no open lease of the caller covers a resend");
    expect(harness.framesFor(ids.commandId)).toBe(0);
  });

  it("under a closed lease (Revoke all) it reads only and sends nothing", async () => {
    const { key, ids } = await uncertainUnsent("p2", "op-closed-lease", "thread.title", title);
    harness.lease.open = false;
    const outcome = await harness.dispatcher.reconcile(key, UNDER_LEASE);
    expect(outcome).toMatchObject({ state: "uncertain", resend: { sent: false } });
    expect(outcome.observation?.reason).toContain("lease_closed");
    expect(harness.framesFor(ids.commandId)).toBe(0);
  });

  it("under a lease of another environment, project or action it reads only and sends nothing", async () => {
    const granted = harness.lease.scope;
    const p2 = harness.env("p2");
    const narrower = [
      leaseScope([{ alias: "old", environmentId: harness.env("old").environmentId }]),
      leaseScope([
        {
          alias: "p2",
          environmentId: p2.environmentId,
          projects: [{ id: "project-else", directory: "/srv/else" }],
        },
      ]),
      leaseScope([{ alias: "p2", environmentId: p2.environmentId, actions: ["thread.pin"] }]),
    ];
    try {
      for (const [index, scope] of narrower.entries()) {
        harness.lease.scope = scope;
        const { key, ids } = await uncertainUnsent("p2", `op-outside-${index}`, "thread.title", title);
        const outcome = await harness.dispatcher.reconcile(key, UNDER_LEASE);
        expect(outcome, `scope ${index}`).toMatchObject({ state: "uncertain", resend: { sent: false } });
        expect(outcome.observation?.reason).toMatch(/environment_not_in_lease|scope_denied/);
        expect(harness.framesFor(ids.commandId)).toBe(0);
      }
    } finally {
      harness.lease.scope = granted;
    }
  });

  it("the operator's explicit ask (a stopped gate's reconcile --resend) sends it once", async () => {
    const { key, ids } = await uncertainUnsent("p2", "op-operator", "thread.title", title);
    const outcome = await harness.dispatcher.reconcile(key, { operator: true });
    expect(outcome).toMatchObject({ state: "completed", resend: { sent: true, answer: "receipt" } });
    expect(harness.framesFor(ids.commandId)).toBe(1);
  });
});
