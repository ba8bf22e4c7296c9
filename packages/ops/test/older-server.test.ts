import { ABSENT_COMMAND_TYPES_0031 } from "@t3-connector/t3-sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

// The simulator's exact 0.0.31 profile (transitional V2, its 37 accepted command types).
let setup: SimOps;

beforeEach(async () => {
  setup = await startSimOps({ environments: [{ alias: "old", compat: "0.0.31" }, { alias: "new" }] });
});
afterEach(async () => {
  await setup.close();
});

const launch = {
  project: "website",
  title: "Old server thread",
  instance: "codex",
  model: "gpt-5.6-sol",
  brief: "hello",
  clientRequestId: "old-1",
};

describe("ops against a 0.0.31 server beside a current one", () => {
  it("lists both environments", async () => {
    const listing = await setup.ops.list();
    expect(listing.unreachable).toEqual([]);
    expect(listing.environments.map((env) => env.alias)).toEqual(["old", "new"]);
  });

  it("creates once, sends, settles, pins and waits, each read back", async () => {
    const first = await setup.ops.create("old", launch);
    const count = setup.env("old").model.receivedCommands.length;
    expect(await setup.ops.create("old", launch)).toMatchObject({ created: false, threadId: first.threadId });
    expect(setup.env("old").model.receivedCommands.length).toBe(count);
    const done = await setup.ops.wait(first.threadId, { timeoutMs: 10_000 });
    expect(done.outcome).toBe("done");
    const sent = await setup.ops.send("old", { thread: first.threadId, text: "more", messageId: "m-1" });
    expect(sent.status).toBe("delivered");
    const settled = await setup.ops.settle("old", "old:Empty draft");
    expect(settled.settled).toBe(true);
    const { thread } = await setup.ops.resolve("old:Release checklist");
    const pinned = await setup.ops.act("old", "thread.pin", { threadId: thread.id }, { operationId: "pin" });
    expect(pinned.confirmation[0]).toMatchObject({ pinned: true });
    const read = await setup.ops.thread(first.threadId);
    expect(read).toMatchObject({ threadId: first.threadId, matchedBy: "id" });
  });

  it("refuses an action the 0.0.31 server cannot decode, per environment, with nothing sent", async () => {
    const { thread } = await setup.ops.resolve("old:Release checklist");
    const before = setup.env("old").model.receivedCommands.length;
    const refused = await setup.ops
      .act("old", "thread.auto-settle.set", { threadId: thread.id, enabled: true }, { operationId: "auto" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({
      code: "action_unsupported",
      details: { action: "thread.auto-settle.set" },
    });
    expect(setup.env("old").model.receivedCommands.length).toBe(before);
    const catalogue = await setup.ops.actions("old");
    const unsupported = catalogue.filter((entry) => entry.supported === false).map((entry) => entry.command);
    expect([...unsupported].sort()).toEqual([...ABSENT_COMMAND_TYPES_0031].sort());
    const current = await setup.ops.actions("new");
    expect(current.filter((entry) => entry.supported !== true).map((entry) => entry.name)).toEqual([]);
  });
});
