import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { openWriteEngine, type WriteEngine } from "../../src/engine/index.js";
import {
  CHANNEL,
  commandsSince,
  type Harness,
  LEASE_ID,
  simulatorWorkspace,
  startHarness,
} from "../dispatch/support/harness.js";

// The engine's public entry over the simulator: the harness gives the simulator, the registry and a
// lease; each test opens an engine of its own on a fresh state directory, as the gate does.

const T = SAMPLE_IDS.threadId;
let harness: Harness;
/** The state directory of the test running now (each test gets a fresh one). */
let stateDir: string | undefined;
const opened: WriteEngine[] = [];

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["face"],
    seed: (env) => env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  });
});

afterEach(async () => {
  for (const engine of opened.splice(0)) await engine.close();
  harness.lease.open = true;
  if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  stateDir = undefined;
});

afterAll(async () => {
  await harness?.close();
});

async function open(): Promise<WriteEngine> {
  stateDir ??= await mkdtemp(join(tmpdir(), "t3c-engine-"));
  const engine = await openWriteEngine({
    stateDir,
    registry: harness.registry,
    channel: CHANNEL,
    verifyWorkspace: simulatorWorkspace,
  });
  opened.push(engine);
  return engine;
}

const pin = (operationId: string) => ({
  leaseId: LEASE_ID,
  lease: harness.lease.facts(LEASE_ID),
  environment: "face",
  operationId,
  action: "thread.pin",
  input: { threadId: T },
});

describe("the write engine's public entry", () => {
  it("sends a write once and answers completed; the same operationId replays without sending", async () => {
    const engine = await open();
    const env = harness.env("face");
    const before = env.model.receivedCommands.length;
    const first = await engine.dispatchOutcome(pin("op-face-1"));
    expect(first).toMatchObject({ state: "completed", replayed: false, action: "thread.pin" });
    const again = await engine.dispatchOutcome(pin("op-face-1"));
    expect(again).toMatchObject({ state: "completed", replayed: true });
    expect(commandsSince(env, before)).toHaveLength(1);
    expect(engine.stats().open).toBe(0);
    expect(await engine.listUncertain()).toEqual([]);
  });

  it("answers a lease refusal before the journal as not_recorded, records nothing and sends nothing", async () => {
    const engine = await open();
    const env = harness.env("face");
    const before = env.model.receivedCommands.length;
    // No open lease by that id: the gate hands the engine no facts.
    const outcome = await engine.dispatchOutcome({ ...pin("op-face-2"), lease: null });
    expect(outcome.state).toBe("not_recorded");
    expect(outcome.state !== "completed" && isConnectorError(outcome.error, "lease_closed")).toBe(true);
    expect(commandsSince(env, before)).toHaveLength(0);
    expect(engine.stats().retained).toBe(0);
  });

  it("answers a refusal the journal recorded as refused, and its repeat as a replay", async () => {
    const engine = await open();
    const missing = { ...pin("op-face-3"), input: { threadId: "9a1f2b3c-0000-4000-8000-00000000dead" } };
    const first = await engine.dispatchOutcome(missing);
    expect(first).toMatchObject({ state: "refused", replayed: false });
    const again = await engine.dispatchOutcome(missing);
    expect(again).toMatchObject({ state: "refused", replayed: true });
  });

  it("holds its state directory's journal until closed: a second engine is refused, then opens", async () => {
    const engine = await open();
    const second = await openWriteEngine({
      stateDir: stateDir as string,
      registry: harness.registry,
      channel: CHANNEL,
    }).catch((error: unknown) => error);
    expect(isConnectorError(second, "journal_unavailable")).toBe(true);
    await engine.close();
    opened.splice(opened.indexOf(engine), 1);
    const reopened = await open();
    expect(reopened.stats().open).toBe(0);
  });
});
