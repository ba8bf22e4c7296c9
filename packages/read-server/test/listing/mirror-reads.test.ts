import {
  countShellReads,
  readyMirror,
  rename,
  threadChanged,
} from "@t3-connector/test-support/mirror-support";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";
import { ALPHA_ID, itemsOf, startTwoEnvironments } from "../tools/listing-support.js";

const TOOL = "t3_threads";

describe("listings served from live shell mirrors", () => {
  let setup: SimReadSetup;
  beforeEach(async () => {
    setup = await startTwoEnvironments([t3ThreadsTool], { limits: { perEnvironmentTimeoutMs: 2_500 } });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("lists a rename made by a command once the mirror received it, without refetching the shell", async () => {
    const first = await setup.call(TOOL, { limit: 50 });
    const alpha = setup.sim.environment("alpha");
    const mirror = await readyMirror(setup, "alpha");
    const shellReads = countShellReads(alpha);
    const target = itemsOf(first, "threads").find((item) => item.environment.alias === "alpha");
    const threadId = String(target?.threadId);

    const changed = threadChanged(mirror, threadId);
    await rename(alpha, threadId, "Renamed while mirrored");
    await changed;
    const found = await setup.call(TOOL, { search: "renamed while mirrored" });
    expect(itemsOf(found, "threads").map((item) => [item.environment.alias, item.threadId])).toEqual([
      ["alpha", threadId],
    ]);
    // The repeated read did not fetch alpha's shell again: the mirror answered.
    expect(shellReads()).toBe(0);
  });

  it("flags an environment whose reconnect fails verification instead of serving its mirror", async () => {
    await setup.call(TOOL, {});
    const alpha = setup.sim.environment("alpha");
    const mirror = await readyMirror(setup, "alpha");
    alpha.faults.set({ wrongEnvironmentId: "env-impostor" });
    alpha.dropSockets();
    await mirror.done;

    const result = await setup.call(TOOL, {});
    expect(result.complete).toBe(false);
    expect(result.environmentFailures).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, code: "environment_mismatch", reason: expect.any(String) },
    ]);
    expect(itemsOf(result, "threads").every((item) => item.environment.alias === "beta")).toBe(true);
  });
});
