import { randomBytes } from "node:crypto";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterEach, describe, expect, it } from "vitest";
import { CAPABILITY_FILE } from "../../src/relay/index.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let world: SimWorld | undefined;
let harness: GateHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await world?.close();
  world = undefined;
});

const pin = (leaseId: string, operationId: string) => pinIdleThread(leaseId, operationId);

describe("relay authentication", () => {
  it("writes a private per-boot capability of 32 random bytes in base64url", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    const capability = await harness.capability();
    expect(capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stat = await lstat(join(world.stateDir, CAPABILITY_FILE));
    expect(stat.isFile()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it("refuses a request without a capability with 401, and nothing reaches the simulator", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    const leaseId = await harness.grantLease();
    const answer = await harness.relay(pin(leaseId, "op-missing"), null);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: "channel_unverified" });
    expect(world.env("alpha").model.receivedCommands).toEqual([]);
  });

  it("refuses a forged capability of the right length and of a wrong length", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    const leaseId = await harness.grantLease();
    const forged = await harness.relay(pin(leaseId, "op-forged"), randomBytes(32).toString("base64url"));
    const short = await harness.relay(pin(leaseId, "op-short"), (await harness.capability()).slice(0, 42));
    expect(forged.status).toBe(401);
    expect(short.status).toBe(401);
    expect(world.env("alpha").model.receivedCommands).toEqual([]);
  });

  it("refuses the capability of a previous boot after a restart", async () => {
    world = await startSimWorld(["alpha"]);
    const first = await startGateHarness({ world });
    const stale = await first.capability();
    await first.close();
    harness = await startGateHarness({ world });
    expect(await harness.capability()).not.toBe(stale);
    const leaseId = await harness.grantLease();
    const answer = await harness.relay(pin(leaseId, "op-stale"), stale);
    expect(answer.status).toBe(401);
    expect(world.env("alpha").model.receivedCommands).toEqual([]);
    // The same request with this boot's capability does go through: the refusal was the capability.
    const fresh = await harness.relay(pin(leaseId, "op-stale"));
    expect(fresh.status).toBe(200);
    expect(world.env("alpha").model.receivedCommands).toHaveLength(1);
  });
});
