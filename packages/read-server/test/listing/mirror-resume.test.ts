/**
 * Issue 15, done-when 1: the simulator's sockets die while the read server holds shell mirrors over
 * two environments. After the automatic resume (`subscribeShell` with `afterSequence`; current T3
 * answers it with a metadata-only snapshot, then replays) every thread is still listed and read by
 * id, from the same mirrors, with no restart of anything.
 */
import type { ShellMirror } from "@t3-connector/core/mirror";
import { countShellReads, readyMirror, rename } from "@t3-connector/test-support/mirror-support";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";
import { itemsOf, startTwoEnvironments } from "../tools/listing-support.js";

const ALIASES = ["alpha", "beta"] as const;

function nextStatus(mirror: ShellMirror, status: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = mirror.onChange((event) => {
      if (event.type !== "status" || event.status !== status) return;
      stop();
      resolve();
    });
  });
}

const listed = (result: Record<string, unknown>) =>
  itemsOf(result, "threads")
    .map((item) => `${item.environment.alias}/${item.threadId}`)
    .sort();

describe("shell mirrors across a dropped socket", () => {
  let setup: SimReadSetup;
  beforeEach(async () => {
    setup = await startTwoEnvironments([t3ThreadsTool, t3ThreadTool], {
      limits: { perEnvironmentTimeoutMs: 5_000 },
    });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("lists every thread and reads each by id after the automatic resume of both environments", async () => {
    const first = await setup.call("t3_threads", { limit: 50, includeNoRun: true });
    expect(first.truncated).toBe(false);
    const before = listed(first);
    expect(before.length).toBeGreaterThan(2);
    const mirrors = await Promise.all(ALIASES.map((alias) => readyMirror(setup, alias)));

    // Drop both sockets; while they are down, commands keep changing the shells (what the resume
    // must replay), then wait for each mirror's own resume to finish.
    const resumed = mirrors.map((mirror) => nextStatus(mirror, "ready"));
    const resyncing = mirrors.map((mirror) => nextStatus(mirror, "resyncing"));
    for (const alias of ALIASES) setup.sim.environment(alias).dropSockets();
    await Promise.all(resyncing);
    const renamed = new Map<string, string>();
    for (const item of itemsOf(first, "threads")) {
      const title = `resumed ${item.threadId}`;
      await rename(setup.sim.environment(item.environment.alias), String(item.threadId), title);
      renamed.set(`${item.environment.alias}/${item.threadId}`, title);
    }
    await Promise.all(resumed);

    const shellReads = ALIASES.map((alias) => countShellReads(setup.sim.environment(alias)));
    const after = await setup.call("t3_threads", { limit: 50, includeNoRun: true });
    expect(listed(after)).toEqual(before);
    for (const item of itemsOf(after, "threads")) {
      expect(item.title).toBe(renamed.get(`${item.environment.alias}/${item.threadId}`));
    }
    // Served by the same mirrors (no refetch, no new mirror): nothing was restarted.
    expect(shellReads.map((count) => count())).toEqual([0, 0]);
    for (const [index, alias] of ALIASES.entries()) {
      const connection = await setup.context.registry.resolve(alias).connect();
      expect(setup.context.mirrors?.peek(connection)).toBe(mirrors[index]);
    }

    for (const item of itemsOf(after, "threads")) {
      const read = await setup.call("t3_thread", {
        environment: item.environment.alias,
        threadId: String(item.threadId),
      });
      expect(read).toMatchObject({ threadId: item.threadId, title: item.title });
    }
  });
});
