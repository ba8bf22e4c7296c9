/**
 * Newer servers' typed orchestrator errors become our own codes instead of a generic refusal
 * (the simulator renders them in one place, orchestrator-errors.ts; the rendering is unverified).
 * Each write ends `refused`, recorded, and nothing is resent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, LEASE_ID, seedSubagentThread, startHarness } from "./support/harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ aliases: ["alpha"], clock: "manual" });
});

afterAll(async () => {
  await harness?.close();
});

function subagentThread(parentRuntimeMode: string, creationSource: "provider" | "mcp"): string {
  return seedSubagentThread(harness.env("alpha"), parentRuntimeMode, creationSource);
}

describe("typed orchestrator refusals", () => {
  it("a message to a provider-native subagent thread is refused as subagent_thread_read_only", async () => {
    const threadId = subagentThread("full-access", "provider");
    const before = harness.env("alpha").model.receivedCommands.length;
    const refused = harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: "alpha",
      operationId: "op-read-only",
      action: "thread.send",
      input: { threadId, text: "hello", clientRequestId: "op-read-only", delivery: "start_immediately" },
    });
    await expect(refused).rejects.toMatchObject({
      code: "subagent_thread_read_only",
      details: expect.objectContaining({ orchestratorError: "OrchestratorSubagentThreadReadOnlyError" }),
    });
    expect(harness.env("alpha").model.receivedCommands.length).toBe(before);
  });

  it("a delegated thread set above its parent's mode is refused as above_mode_limit, naming the limit", async () => {
    const threadId = subagentThread("approval-required", "mcp");
    const refused = harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: "alpha",
      operationId: "op-above-mode",
      action: "thread.runtime-mode.set",
      input: { threadId, runtimeMode: "full-access" },
    });
    await expect(refused).rejects.toMatchObject({
      code: "above_mode_limit",
      details: expect.objectContaining({
        mode: "approval-required",
        runtimeMode: "full-access",
        state: "refused",
      }),
    });
  });
});
