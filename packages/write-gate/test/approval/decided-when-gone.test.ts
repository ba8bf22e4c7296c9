/**
 * A request that stops waiting without a decision still reaches the phone (ADR 0073): withdrawn
 * by its session's end, or superseded by the same holder's new ask or by every lease closing,
 * the feed the events service reads says `approval.decided` with `withdrawn` or `superseded`, so
 * a push that said "waiting" learns it is gone.
 */
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalFeed } from "../../src/approval/approval-feed.js";

let gate: SimGate;
let feed: ApprovalFeed;

beforeEach(async () => {
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] }],
  });
  feed = new ApprovalFeed(gate.events, gate.desk, gate.clock);
});
afterEach(async () => {
  await gate.close();
});

async function decided(): Promise<{ requestId: string; decision: string | undefined }[]> {
  const { entries } = await feed.read(0, 0);
  return entries
    .filter((entry) => entry.type === "approval.decided")
    .map((entry) => ({ requestId: entry.request.requestId, decision: entry.decision }));
}

describe("approval.decided for a request that stopped waiting", () => {
  it("says withdrawn when its session's end withdraws it", async () => {
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    expect(gate.desk.withdrawHeldBy(link.leaseSecret as string)).toBe(1);
    expect(await decided()).toEqual([{ requestId: link.requestId, decision: "withdrawn" }]);
  });

  it("says superseded when the same holder asks again, and when every lease is closed", async () => {
    const first = await gate.desk.request({ actions: ["thread.pin"] });
    const second = await gate.desk.request({
      actions: ["thread.pin"],
      holderSecret: first.leaseSecret as string,
    });
    gate.keeper.closeAll("revoked");
    expect(await decided()).toEqual([
      { requestId: first.requestId, decision: "superseded" },
      { requestId: second.requestId, decision: "superseded" },
    ]);
  });
});
