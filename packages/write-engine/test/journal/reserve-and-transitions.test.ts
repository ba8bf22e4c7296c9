import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ManualClock, makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Journal,
  type JournalOperation,
  type JournalRecord,
  type JournalState,
  journalKey,
  openJournal,
} from "../../src/journal/index.js";

let temp: TempDir;
let clock: ManualClock;
let journal: Journal;

beforeEach(async () => {
  temp = await makeTempDir();
  clock = new ManualClock();
  journal = await openJournal({ stateDir: temp.stateDir, clock });
});
afterEach(async () => {
  await journal.close();
  await temp.remove();
});

const activeFile = () => join(temp.stateDir, "journal", "active.json");

/** Bring a fresh record to `state` through the legal path. */
async function recordIn(state: JournalState, operationId: string): Promise<JournalRecord> {
  const { record } = await journal.reserve(request(operationId));
  if (state === "preparing") return record;
  if (state === "refused") return journal.refuse(record.key, { code: "scope_denied", message: "no" });
  const uncertain = await journal.markUncertain(record.key, { commandId: "c" });
  if (state === "uncertain") return uncertain;
  return journal.complete(record.key, { sequence: 1 });
}

describe("reserve", () => {
  it("reserves a new operation as preparing and keeps only the hash of its input", async () => {
    const result = await journal.reserve(
      request("op-1", { input: { threadId: "t-1", text: "a secret prompt" } }),
    );
    expect(result.kind).toBe("reserved");
    expect(result.record).toMatchObject({
      key: journalKey(request("op-1")),
      operationId: "op-1",
      action: "thread.send",
      environmentId: "env-a",
      destination: "t3://env-a",
      state: "preparing",
      derivedIds: null,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    expect(result.record.inputHash).toMatch(/^[0-9a-f]{64}$/);
    // A reservation rides on the next write (here markUncertain's); the input never reaches the disk.
    await journal.markUncertain(result.record.key, { commandId: "c-1" });
    const onDisk = await readFile(activeFile(), "utf8");
    expect(onDisk).toContain(result.record.key);
    expect(onDisk).not.toContain("a secret prompt");
  });

  it("replays the recorded outcome for the same key and the same input, whatever its key order", async () => {
    const input = { threadId: "t-1", text: "hi", options: { a: 1, b: 2 } };
    const { record } = await journal.reserve(request("op-1", { input }));
    await journal.markUncertain(record.key, { commandId: "c-1", messageId: "c-1" });
    await journal.complete(record.key, { sequence: 41 });

    const again = await journal.reserve(
      request("op-1", { input: { options: { b: 2, a: 1 }, text: "hi", threadId: "t-1" } }),
    );
    expect(again.kind).toBe("existing");
    expect(again.record).toMatchObject({
      state: "completed",
      receipt: { sequence: 41 },
      derivedIds: { commandId: "c-1", messageId: "c-1" },
    });
  });

  it("refuses the same operationId with another input or action as operation_conflict, leaving the record as it was", async () => {
    const { record } = await journal.reserve(request("op-1"));
    await expect(journal.reserve(request("op-1", { input: { threadId: "thread-2" } }))).rejects.toMatchObject(
      {
        code: "operation_conflict",
      },
    );
    await expect(journal.reserve(request("op-1", { action: "thread.interrupt" }))).rejects.toMatchObject({
      code: "operation_conflict",
    });
    expect(await journal.get(record.key)).toEqual(record);
  });

  it("treats the same operationId in another environment or from another caller as another operation", async () => {
    await journal.reserve(request("op-1"));
    const elsewhere = await journal.reserve(
      request("op-1", { environmentId: "env-b", destination: "t3://env-b" }),
    );
    const otherCaller = await journal.reserve(request("op-1", { caller: "channel:other|tunnel:9" }));
    expect(elsewhere.kind).toBe("reserved");
    expect(otherCaller.kind).toBe("reserved");
  });

  it("gives exactly one reserved among 50 simultaneous reserves of one key, and the others only once it is durable", async () => {
    const key = journalKey(request("op-1"));
    const first = await journal.reserve(request("op-1"));
    // The owner's next step makes the reservation durable; duplicates arriving meanwhile wait for it.
    const uncertain = journal.markUncertain(first.record.key, { commandId: "c-1" });
    const seenOnDiskWhenResolved: boolean[] = [];
    const results = await Promise.all(
      Array.from({ length: 49 }, () =>
        journal.reserve(request("op-1")).then((result) => {
          seenOnDiskWhenResolved.push(readFileSync(activeFile(), "utf8").includes(key));
          return result;
        }),
      ),
    );
    await uncertain;
    expect(first.kind).toBe("reserved");
    expect(results.filter((result) => result.kind === "existing")).toHaveLength(49);
    expect(new Set(results.map((result) => result.record.key))).toEqual(new Set([key]));
    expect(new Set(results.map((result) => result.record.state))).toEqual(new Set(["uncertain"]));
    expect(seenOnDiskWhenResolved).toEqual(Array(49).fill(true));
    expect(journal.stats().retained).toBe(1);
  });

  it("gives exactly one reserved among 50 simultaneous reserves of one key in the same tick", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => journal.reserve(request("op-1"))));
    expect(results.filter((result) => result.kind === "reserved")).toHaveLength(1);
    expect(results.filter((result) => result.kind === "existing")).toHaveLength(49);
  });

  it("shows a waiting duplicate the state its first caller reached, once durable", async () => {
    const first = journal.reserve(request("op-1")).then(async ({ record }) => {
      return journal.markUncertain(record.key, { commandId: "c-1" });
    });
    const duplicate = await journal.reserve(request("op-1"));
    expect(duplicate.kind).toBe("existing");
    await first;
    expect((await journal.reserve(request("op-1"))).record.state).toBe("uncertain");
  });
});

describe("transitions", () => {
  const cases: Array<[JournalOperation, JournalState, JournalState | "illegal"]> = [
    ["markUncertain", "preparing", "uncertain"],
    ["markUncertain", "uncertain", "illegal"],
    ["markUncertain", "completed", "illegal"],
    ["markUncertain", "refused", "illegal"],
    ["recordError", "preparing", "illegal"],
    ["recordError", "uncertain", "uncertain"],
    ["recordError", "completed", "illegal"],
    ["complete", "preparing", "illegal"],
    ["complete", "uncertain", "completed"],
    ["complete", "completed", "illegal"],
    ["complete", "refused", "illegal"],
    ["refuse", "preparing", "refused"],
    ["refuse", "uncertain", "refused"],
    ["refuse", "completed", "illegal"],
    ["refuse", "refused", "illegal"],
    ["settle", "preparing", "illegal"],
    ["settle", "uncertain", "completed"],
    ["settle", "completed", "illegal"],
    ["settle", "refused", "illegal"],
  ];

  it.each(cases)("%s on a %s record → %s", async (operation, from, expected) => {
    const record = await recordIn(from, "op-t");
    const run = (): Promise<JournalRecord> => {
      switch (operation) {
        case "markUncertain":
          return journal.markUncertain(record.key, { commandId: "c-2" });
        case "recordError":
          return journal.recordError(record.key, { code: "t3_refused", message: "thread needs attention" });
        case "complete":
          return journal.complete(record.key, { sequence: 7 });
        case "refuse":
          return journal.refuse(record.key, { code: "lease_closed", message: "closed" });
        default:
          return journal.settle(record.key, { state: "completed", receipt: { sequence: 9 } });
      }
    };
    if (expected === "illegal") {
      await expect(run()).rejects.toMatchObject({
        code: "journal_transition_invalid",
        details: { operation, from },
      });
      expect((await journal.get(record.key))?.state).toBe(from);
    } else {
      expect((await run()).state).toBe(expected);
      expect((await journal.get(record.key))?.state).toBe(expected);
    }
  });

  it("answers not_found for a key it does not hold", async () => {
    await expect(journal.complete("0".repeat(64), { sequence: 1 })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("stamps each step with the injected clock and marks reconciliation", async () => {
    const { record } = await journal.reserve(request("op-1"));
    clock.advance(1_000);
    const uncertain = await journal.markUncertain(record.key, { commandId: "c-1" });
    clock.advance(1_000);
    const settled = await journal.settle(record.key, {
      state: "refused",
      error: { code: "t3_refused", message: "no" },
    });
    expect(uncertain.updatedAt).toBe(record.createdAt + 1_000);
    expect(settled).toMatchObject({
      state: "refused",
      createdAt: record.createdAt,
      settledAt: record.createdAt + 2_000,
      reconciledAt: record.createdAt + 2_000,
      error: { code: "t3_refused", message: "no" },
    });
  });

  it("refuses a receipt it could not load back, and changes nothing", async () => {
    const record = await recordIn("uncertain", "op-1");
    await expect(journal.complete(record.key, { sequence: Number.NaN })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(journal.complete(record.key, { nested: {} as unknown as string })).rejects.toMatchObject({
      code: "invalid_input",
    });
    expect((await journal.get(record.key))?.state).toBe("uncertain");
  });

  it("clips a long error message", async () => {
    const record = await recordIn("preparing", "op-1");
    const refused = await journal.refuse(record.key, {
      code: "dispatch_rejected",
      message: "x".repeat(5_000),
    });
    expect(refused.error?.message).toHaveLength(2_000);
  });
});

describe("listing", () => {
  it("lists uncertain records and filters by state, environment and action", async () => {
    const uncertain = await recordIn("uncertain", "op-u");
    await recordIn("completed", "op-c");
    await recordIn("preparing", "op-p");
    const other = await journal.reserve(
      request("op-x", { environmentId: "env-b", destination: "t3://env-b", action: "thread.interrupt" }),
    );

    expect((await journal.listUncertain()).map((record) => record.key)).toEqual([uncertain.key]);
    expect((await journal.list({ states: ["preparing", "uncertain"] })).map((r) => r.operationId)).toEqual([
      "op-u",
      "op-p",
      "op-x",
    ]);
    expect((await journal.list({ environmentId: "env-b" })).map((r) => r.key)).toEqual([other.record.key]);
    expect(
      (await journal.list({ action: "thread.send", states: ["completed"] })).map((r) => r.operationId),
    ).toEqual(["op-c"]);
    expect(await journal.list({ limit: 2 })).toHaveLength(2);
  });

  it("returns copies that cannot change the journal", async () => {
    const record = await recordIn("uncertain", "op-1");
    record.state = "completed";
    (record.derivedIds as Record<string, string>).commandId = "tampered";
    expect(await journal.get(record.key)).toMatchObject({
      state: "uncertain",
      derivedIds: { commandId: "c" },
    });
  });
});

describe("the journaled command", () => {
  const command = {
    kind: "dispatch" as const,
    body: {
      type: "message.dispatch",
      commandId: "c-9",
      threadId: "t-1",
      text: "a prompt kept only while open",
    },
  };

  it("is kept while uncertain, survives a reopen, and is erased from disk when the record settles", async () => {
    const { record } = await journal.reserve(request("op-cmd"));
    const uncertain = await journal.markUncertain(record.key, { commandId: "c-9" }, command);
    expect(uncertain.command).toEqual(command);
    expect(await readFile(activeFile(), "utf8")).toContain("a prompt kept only while open");
    await journal.close();
    journal = await openJournal({ stateDir: temp.stateDir, clock });
    expect((await journal.get(record.key))?.command).toEqual(command);

    const settled = await journal.settle(record.key, { state: "completed", receipt: { sequence: 3 } });
    expect(settled.command).toBeUndefined();
    expect(await readFile(activeFile(), "utf8")).not.toContain("a prompt kept only while open");
  });

  it("is optional: a record marked uncertain without one (the earlier format) loads and settles", async () => {
    const { record } = await journal.reserve(request("op-no-cmd"));
    await journal.markUncertain(record.key, { commandId: "c-10" });
    await journal.close();
    journal = await openJournal({ stateDir: temp.stateDir, clock });
    const loaded = await journal.get(record.key);
    expect(loaded).toMatchObject({ state: "uncertain" });
    expect(loaded?.command).toBeUndefined();
    expect(await journal.refuse(record.key, { code: "t3_refused/X", message: "no" })).toMatchObject({
      state: "refused",
    });
  });
});
