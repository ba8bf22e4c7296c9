import { randomUUID } from "node:crypto";
import type { ShellMirror } from "@t3-connector/core/mirror";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";
import type { SimReadSetup } from "../support/sim-context.js";
import { ALPHA_ID, itemsOf, startTwoEnvironments } from "../tools/listing-support.js";

const TOOL = "t3_threads";

/** Counts the HTTP shell reads the environment serves from now on. */
function countShellReads(env: SimEnvironment): () => number {
  let count = 0;
  const serve = env.model.httpShell.bind(env.model);
  env.model.httpShell = () => {
    count += 1;
    return serve();
  };
  return () => count;
}

/** The environment's shell mirror, once ready (the first sweep starts it). */
async function readyMirror(setup: SimReadSetup, alias: string): Promise<ShellMirror> {
  const connection = await setup.context.registry.resolve(alias).connect();
  const mirror = setup.context.mirrors?.peek(connection);
  if (mirror === undefined) throw new Error(`no mirror for ${alias}`);
  if (!mirror.ready) {
    await new Promise<void>((resolve) => {
      const stop = mirror.onChange(() => {
        if (!mirror.ready) return;
        stop();
        resolve();
      });
    });
  }
  return mirror;
}

function threadChanged(mirror: ShellMirror, threadId: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = mirror.onChange((event) => {
      if (event.type !== "change" || !("threadId" in event.change) || event.change.threadId !== threadId)
        return;
      stop();
      resolve();
    });
  });
}

async function rename(env: SimEnvironment, threadId: string, title: string): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    type: "thread.metadata.update",
    commandId: randomUUID(),
    threadId,
    title,
  });
  expect(outcome.kind).toBe("success");
}

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
