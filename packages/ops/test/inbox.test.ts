/**
 * `inbox` and `answer` (ADR 0073): the same items as the gate's `/inbox` (core's one model, the
 * same ids), read fresh; one answered with the operator's token, sent once; a second answer finds
 * nothing waiting and sends nothing; a secret request is never answered here.
 */
import { inboxItemId } from "@t3-connector/core/state";
import { describe, expect, it } from "vitest";
import { renderInbox } from "../src/cli/inbox-commands.js";
import { connectorFailure } from "./support/connector-failure.js";
import type { SimOps } from "./support/sim-ops.js";
import { useSimOpsPerTest } from "./support/sim-ops-per-test.js";

let setup: SimOps;

useSimOpsPerTest((started) => {
  setup = started;
});

const responses = (alias: string) =>
  setup.env(alias).model.receivedCommands.filter((command) => command.type === "runtime-request.respond");

describe("inbox", () => {
  it("lists what waits on the person across environments, oldest first, under the gate's item ids", async () => {
    const { items, unavailable } = await setup.ops.inbox();
    expect(unavailable).toEqual([]);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      if (item.thread === null || item.request.type === "lease") continue;
      const requestId = item.request.requestId ?? "";
      if (item.request.type === "runtime") {
        expect(item.itemId).toBe(inboxItemId(item.environment.environmentId, item.thread.id, requestId));
      }
    }
    const approval = items.find((item) => item.thread?.title === "Run the test suite?");
    expect(approval).toMatchObject({ kind: "approval", environment: { alias: "alpha" } });
    const table = renderInbox({ items, unavailable });
    expect(table).toContain(approval?.itemId);
    expect(table).toContain("approval");
  });
});

describe("answer", () => {
  it("answers an approval once with the operator's token; a second answer finds nothing waiting and sends nothing", async () => {
    const { items } = await setup.ops.inbox();
    const approval = items.find((item) => item.thread?.title === "Run the test suite?");
    if (approval === undefined) throw new Error("no approval waits");
    const answered = await setup.ops.answer({ itemId: approval.itemId, decision: "decline" });
    expect(answered).toMatchObject({ action: "runtime-request.approve", itemId: approval.itemId });
    expect(responses("alpha")).toHaveLength(1);
    const again = await connectorFailure(setup.ops.answer({ itemId: approval.itemId, decision: "decline" }));
    expect(again.code).toBe("invalid_input");
    expect(responses("alpha")).toHaveLength(1);
  });

  it("refuses an approval without a decision, before anything is sent", async () => {
    const { items } = await setup.ops.inbox();
    const approval = items.find((item) => item.kind === "approval");
    if (approval === undefined) throw new Error("no approval waits");
    const refused = await connectorFailure(setup.ops.answer({ itemId: approval.itemId }));
    expect(refused.code).toBe("invalid_input");
    expect(responses(approval.environment.alias)).toHaveLength(0);
  });
});
