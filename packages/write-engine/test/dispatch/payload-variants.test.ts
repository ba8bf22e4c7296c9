/**
 * The union members the samples do not cover (other deliveries, workspace strategies, source
 * points), each accepted by the strict simulator as exactly one command with its derived ids.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActionId, deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { commandsSince, type Harness, LEASE_ID, startHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
const P = SAMPLE_IDS.projectId;
const MODEL = { instanceId: "codex", model: "gpt-5.6-sol" };

interface Variant {
  name: string;
  action: ActionId;
  state: "running" | "completed" | "none";
  input: Record<string, unknown>;
}

const send = (operationId: string, fields: Record<string, unknown>) => ({
  threadId: T,
  text: "Variant message.",
  clientRequestId: operationId,
  ...fields,
});

const VARIANTS: Variant[] = [
  {
    name: "send-start",
    action: "thread.send",
    state: "completed",
    input: send("send-start", { delivery: "start_immediately" }),
  },
  {
    name: "send-restart",
    action: "thread.send",
    state: "running",
    input: send("send-restart", { delivery: "restart_active", targetRunId: SAMPLE_IDS.runId }),
  },
  {
    name: "send-queue",
    action: "thread.send",
    state: "running",
    input: send("send-queue", { delivery: "queue_after_active", deferUntilActiveCompletes: true }),
  },
  {
    name: "launch-root-with-text",
    action: "thread.launch",
    state: "none",
    input: {
      projectId: P,
      title: "root launch",
      modelSelection: MODEL,
      workspaceStrategy: { type: "root" },
      text: "Hello.",
    },
  },
  {
    name: "launch-worktree",
    action: "thread.launch",
    state: "none",
    input: {
      projectId: P,
      title: "worktree launch",
      modelSelection: MODEL,
      workspaceStrategy: { type: "worktree", baseRef: "main", branch: "feature/y", startFromOrigin: true },
    },
  },
  {
    name: "fork-latest-stable",
    action: "thread.fork",
    state: "completed",
    input: { sourceThreadId: T, sourcePoint: { type: "latest_stable" } },
  },
  {
    name: "metadata-title-only",
    action: "thread.metadata.update",
    state: "completed",
    input: { threadId: T, title: "only a title" },
  },
];

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: VARIANTS.map((variant) => variant.name),
    clock: "manual",
    seed: (env) => {
      const variant = VARIANTS.find((item) => item.name === env.alias);
      if (variant && variant.state !== "none")
        env.model.addThread({ id: T, projectId: P, state: variant.state });
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

describe("payload variants", () => {
  it.each(VARIANTS)("$name is accepted by the strict simulator as one command", async (variant) => {
    const env = harness.env(variant.name);
    const before = env.model.receivedCommands.length;
    const result = await harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: variant.name,
      operationId: variant.name,
      action: variant.action,
      input: variant.input,
    });
    const ids = deriveIds(
      result.key,
      variant.action,
      variant.action === "thread.send" ? { clientRequestId: variant.name } : {},
    );
    expect(result.state).toBe("completed");
    expect(commandsSince(env, before).map((command) => command.commandId)).toEqual([ids.commandId]);
    expect(harness.framesFor(ids.commandId)).toBe(1);
  });
});
