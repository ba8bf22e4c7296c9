/**
 * The bridge against the real gate: the gate's own test harness (startGate over the simulator) and
 * one bridge session relaying to it, for every test in a file.
 */

import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import type { SimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll } from "vitest";
import { type BridgeSession, connectBridge } from "./bridge-client.js";

/**
 * Registers the file's hooks, closed after its tests; `ready` hands the harness and the session to
 * the file's own variables. `world` starts a simulator other than the harness's default one.
 */
export function useBridgeOverRealGate(
  ready: (harness: GateHarness, bridge: BridgeSession) => void,
  world?: () => Promise<SimWorld>,
): void {
  let given: SimWorld | undefined;
  let harness: GateHarness | undefined;
  let bridge: BridgeSession | undefined;
  beforeAll(async () => {
    given = await world?.();
    harness = await startGateHarness(given === undefined ? {} : { world: given });
    bridge = await connectBridge({ port: harness.gate.port, stateDir: harness.world.stateDir });
    ready(harness, bridge);
  });
  afterAll(async () => {
    await bridge?.close();
    await harness?.close();
    await given?.close();
  });
}
