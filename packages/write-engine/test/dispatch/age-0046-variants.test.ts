/**
 * The writes on the simulator's 0.0.46 age, run against both values of every open point
 * (UNKNOWNS_0046_AS_BEFORE and UNKNOWNS_0046_OTHERWISE cover each variant once, ADR 0069): a
 * launch, a send and a pin land; a typed refusal keeps its code and T3's words with or without its
 * `cause`; a pull-request watch with `paused` is refused as action_unsupported, unsent.
 */
import { UNKNOWNS_0046_AS_BEFORE, UNKNOWNS_0046_OTHERWISE, type Unknowns0046 } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { type Harness, LEASE_ID, seedSubagentThread, startHarness } from "./support/harness.js";

const MODEL = { instanceId: "codex", model: "gpt-5.6-sol" };

describe.each([
  ["as the simulator played it before", UNKNOWNS_0046_AS_BEFORE],
  ["the other way on every open point", UNKNOWNS_0046_OTHERWISE],
] as const)("writes on the 0.0.46 age, %s", (_name, unknowns: Unknowns0046) => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      aliases: ["age"],
      unknowns,
      seed: (env) => {
        env.model.addThread({ id: SAMPLE_IDS.threadId, projectId: SAMPLE_IDS.projectId, state: "completed" });
      },
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const write = (operationId: string, action: string, input: unknown) =>
    harness.dispatcher.dispatch({ leaseId: LEASE_ID, environment: "age", operationId, action, input });

  it("launches, sends and pins", async () => {
    const launched = await write("op-launch", "thread.launch", {
      projectId: SAMPLE_IDS.projectId,
      title: "age launch",
      modelSelection: MODEL,
      workspaceStrategy: { type: "root" },
    });
    expect(launched.state).toBe("completed");
    const sent = await write("op-send", "thread.send", {
      threadId: SAMPLE_IDS.threadId,
      text: "hello",
      clientRequestId: "op-send",
      delivery: "start_immediately",
    });
    expect(sent.state).toBe("completed");
    const pinned = await write("op-pin", "thread.pin", { threadId: SAMPLE_IDS.threadId });
    expect(pinned.state).toBe("completed");
    expect(harness.framesFor(String(pinned.receipt.commandId ?? ""))).toBeLessThanOrEqual(1);
  });

  it("a typed refusal keeps its code and T3's words, with or without its cause", async () => {
    const child = seedSubagentThread(harness.env("age"), "approval-required", "mcp");
    const refused = await write("op-above", "thread.runtime-mode.set", {
      threadId: child,
      runtimeMode: "full-access",
    }).then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string; details?: Record<string, unknown> },
    );
    expect(refused?.code).toBe("above_mode_limit");
    expect(refused?.message).toContain("cannot use runtime mode full-access");
    expect(refused?.details?.orchestratorError === undefined).toBe(unknowns.refusalCause === "absent");
  });

  it("refuses a pull-request watch with paused as action_unsupported, sending nothing", async () => {
    const framesBefore = harness.writeFrames.length;
    const refused = await write("op-watch-paused", "thread.pull-request.watch", {
      threadId: SAMPLE_IDS.threadId,
      host: "github.com",
      repository: "acme/api",
      number: 7,
      watching: true,
      link: { url: "https://github.com/acme/api/pull/7", source: "manual" },
      paused: true,
    }).then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(refused?.code).toBe("action_unsupported");
    expect(refused?.message).toContain("not known to keep paused");
    expect(harness.writeFrames.length).toBe(framesBefore);
  });
});
