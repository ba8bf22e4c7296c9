/**
 * The engine parses a write's input once (ADR 0072): `prepareAction` runs once per dispatch, a
 * launch that names no runtime mode included, whose mode the lease's ceiling fills after the
 * admission check without a second parse (`withOmittedRuntimeMode`). Counted by V8's own call
 * counts over one dispatch after a first one warmed every module.
 */
import { type CoverageProbe, startCoverageProbe } from "@t3-connector/test-support/executed-code";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { type Harness, LEASE_ID, useHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
const P = SAMPLE_IDS.projectId;
let harness: Harness;
let probe: CoverageProbe;

useHarness(
  {
    aliases: ["once"],
    seed: (env) => env.model.addThread({ id: T, projectId: P, state: "completed" }),
  },
  (started) => {
    harness = started;
  },
);

beforeAll(async () => {
  probe = await startCoverageProbe();
});

afterAll(async () => {
  await probe?.stop();
});

const launch = (n: number) => ({
  leaseId: LEASE_ID,
  environment: "once",
  operationId: `op-launch-once-${n}`,
  action: "thread.launch" as const,
  input: {
    projectId: P,
    title: `launched ${n}`,
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    workspaceStrategy: { type: "root" },
  },
});

describe("one parse per write", () => {
  it("prepares a launch that names no mode once, its mode filled from the lease's ceiling", async () => {
    await harness.dispatcher.dispatch(launch(1));
    await probe.take();
    const done = await harness.dispatcher.dispatch(launch(2));
    const ran = await probe.take();
    expect(done).toMatchObject({ state: "completed", replayed: false, runtimeMode: "full-access" });
    expect(ran.calls("actions/catalogue.ts", "prepareAction")).toBe(1);
    expect(ran.calls("actions/catalogue.ts", "withOmittedRuntimeMode")).toBe(1);
  });

  it("prepares a write that targets a thread once", async () => {
    const title = (n: number) => ({
      leaseId: LEASE_ID,
      environment: "once",
      operationId: `op-title-once-${n}`,
      action: "thread.title" as const,
      input: { threadId: T, title: `once ${n}` },
    });
    await harness.dispatcher.dispatch(title(1));
    await probe.take();
    expect(await harness.dispatcher.dispatch(title(2))).toMatchObject({ state: "completed" });
    expect((await probe.take()).calls("actions/catalogue.ts", "prepareAction")).toBe(1);
  });
});
