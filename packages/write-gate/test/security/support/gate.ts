/**
 * A gate app over a private temp state dir. Its inventory is given by the test; tests of the
 * HTTP checks never reach it, tests of approvals pass the simulator's (see approval/support).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@t3-connector/core";
import type { StoredCredential } from "@t3-connector/core/passkeys";
import { createGateApp, type GateApp, type GateAppDeps } from "../../../src/app/index.js";
import type { Inventory } from "../../../src/approval/index.js";
import { CREDENTIALS_FILE, saveCredentials } from "../../../src/passkeys/index.js";

export const TEST_PORT = 7433;
export const ENROLLMENT_CODE = "ABCD-EFGH-JKMN-PQRS";

/** A clock a test moves by hand: both readings advance together unless told otherwise. */
export class ManualClock implements Clock {
  wall = Date.parse("2026-12-02T12:00:00.000Z");
  mono = 1_000;
  now(): number {
    return this.wall;
  }
  monotonic(): number {
    return this.mono;
  }
  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
}

export const noInventory: Inventory = async () => {
  throw new Error("this test does not inventory");
};

export interface TestGate extends GateApp {
  stateDir: string;
  clock: ManualClock;
  logs: string[];
  close(): Promise<void>;
}

export async function startTestGate(
  overrides: Partial<GateAppDeps> = {},
  seed: readonly StoredCredential[] = [],
): Promise<TestGate> {
  const stateDir = await mkdtemp(join(tmpdir(), "t3c-gate-"));
  if (seed.length > 0) await saveCredentials(join(stateDir, CREDENTIALS_FILE), seed);
  const clock = new ManualClock();
  const logs: string[] = [];
  const gate = await createGateApp({
    port: TEST_PORT,
    clock,
    stateDir,
    enrollmentCode: ENROLLMENT_CODE,
    inventory: noInventory,
    log: (line) => logs.push(line),
    ...overrides,
  });
  return { ...gate, stateDir, clock, logs, close: () => rm(stateDir, { recursive: true, force: true }) };
}

/** Headers of a well-formed page call; a test removes or changes one to attack it. */
export function pageHeaders(port = TEST_PORT): Record<string, string> {
  return {
    host: `localhost:${port}`,
    origin: `http://localhost:${port}`,
    "content-type": "application/json",
  };
}
