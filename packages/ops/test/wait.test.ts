import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

let setup: SimOps;

beforeEach(async () => {
  setup = await startSimOps({ environments: [{ alias: "alpha" }] });
});
afterEach(async () => {
  await setup.close();
});

/** A new thread whose first run follows the simulator directive in its brief. */
async function launched(brief: string, id: string): Promise<string> {
  const created = await setup.ops.create("alpha", {
    project: "website",
    title: `Scripted ${id}`,
    instance: "codex",
    model: "gpt-5.6-sol",
    brief,
    clientRequestId: id,
  });
  return created.threadId;
}

describe("wait", () => {
  it("returns done (exit 0) when the run completes", async () => {
    const threadId = await launched("do it", "done");
    const result = await setup.ops.wait(threadId, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ outcome: "done", exitCode: 0, threadId, state: "completed" });
  });

  it("returns needs_human (exit 2) when the run asks a question", async () => {
    const threadId = await launched("which one? [[sim:ask]]", "ask");
    const result = await setup.ops.wait(`alpha:${threadId}`, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ outcome: "needs_human", exitCode: 2, state: "needs_intervention" });
    expect(result.pendingRequest).not.toBeNull();
  });

  it("returns failed (exit 3) when the run fails", async () => {
    const threadId = await launched("break [[sim:fail=boom]]", "fail");
    const result = await setup.ops.wait(threadId, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ outcome: "failed", exitCode: 3, state: "failed" });
  });

  it("returns timeout (exit 4) when the run is still going at the deadline", async () => {
    const threadId = await launched("forever [[sim:hang]]", "hang");
    const result = await setup.ops.wait(threadId, { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: "timeout", exitCode: 4, state: "running" });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(300);
  });
});
