/**
 * `t3-connector-ops <env> batch <action> <thread>…` (ADR 0074) against the simulator: each thread
 * changed once; the same --batch-id again applies nothing new (T3 answers each derived commandId's
 * receipt); a thread that does not exist is refused and the batch goes on; bad input sends nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

let setup: SimOps;
const THREADS = [randomUUID(), randomUUID(), randomUUID()];

beforeAll(async () => {
  setup = await startSimOps({ environments: [{ alias: "alpha", seed: "empty" }] });
  const alpha = setup.env("alpha");
  alpha.model.addProject({ id: "p-batch", title: "batch", workspaceRoot: "/srv/batch" });
  for (const id of THREADS) alpha.model.addThread({ id, projectId: "p-batch", state: "completed" });
});

afterAll(async () => {
  await setup?.close();
});

const ops = (args: string[]) =>
  runOps(["alpha", ...args, "--json"], { env: { T3_CONNECTOR_OPS_CONFIG: setup.configPath } });

describe("ops batch", () => {
  it("pins every thread once, and the same batch id again applies nothing new", async () => {
    const alpha = setup.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const run = await ops(["batch", "pin", ...THREADS, "--batch-id", "pin-all"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ state: "completed", batchId: "pin-all", action: "pin" });
    for (const id of THREADS)
      expect(alpha.model.store.threads.get(id)?.thread.pinnedAt).toEqual(expect.any(String));
    const commandIds = alpha.model.receivedCommands.slice(before).map((command) => command.commandId);
    expect(commandIds).toHaveLength(3);
    const sequence = alpha.model.sequence;
    const again = await ops(["batch", "pin", ...THREADS, "--batch-id", "pin-all"]);
    expect(again.code, again.stderr).toBe(0);
    // T3 replays each receipt by commandId: no new event.
    expect(alpha.model.sequence).toBe(sequence);
  });

  it("refuses a missing thread and goes on; refuses bad input before sending anything", async () => {
    const run = await ops(["batch", "archive", randomUUID(), THREADS[0] as string, "--batch-id", "arch-1"]);
    const result = run.json() as { items: { state: string; code?: string }[] };
    expect(result.items.map((item) => item.state)).toEqual(["refused", "completed"]);
    expect(result.items[0]?.code).toBe("thread_not_found");
    const before = setup.env("alpha").model.receivedCommands.length;
    const bad = await ops(["batch", "snooze", THREADS[1] as string, "--batch-id", "s-1"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toMatch(/invalid_input/);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });
});
