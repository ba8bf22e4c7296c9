/** Helpers of the tests that watch the read server's live shell mirrors. */
import { randomUUID } from "node:crypto";
import type { ShellMirror } from "@t3-connector/core/mirror";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { expect } from "vitest";
import type { SimReadSetup } from "./sim-context.js";

/** Counts the HTTP shell reads the environment serves from now on. */
export function countShellReads(env: SimEnvironment): () => number {
  let count = 0;
  const serve = env.model.httpShell.bind(env.model);
  env.model.httpShell = () => {
    count += 1;
    return serve();
  };
  return () => count;
}

/** The environment's shell mirror, once ready (the first sweep starts it). */
export async function readyMirror(setup: SimReadSetup, alias: string): Promise<ShellMirror> {
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

export function threadChanged(mirror: ShellMirror, threadId: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = mirror.onChange((event) => {
      if (event.type !== "change" || !("threadId" in event.change) || event.change.threadId !== threadId)
        return;
      stop();
      resolve();
    });
  });
}

export async function rename(env: SimEnvironment, threadId: string, title: string): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    type: "thread.metadata.update",
    commandId: randomUUID(),
    threadId,
    title,
  });
  expect(outcome.kind).toBe("success");
}
