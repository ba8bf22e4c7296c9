import { once } from "node:events";
import { access } from "node:fs/promises";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import {
  type GateHarness,
  simulatorWorkspace,
  startGateHarness,
} from "@t3-connector/test-support/gate-harness";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { openJournal } from "@t3-connector/write-engine/journal";
import { afterEach, describe, expect, it } from "vitest";
import { startGate } from "../../src/process/index.js";
import { CAPABILITY_FILE } from "../../src/relay/index.js";

let world: SimWorld | undefined;
let harness: GateHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await world?.close();
  world = undefined;
});

describe("the gate process", () => {
  it("listens on 127.0.0.1 only and answers only Host localhost:<port>", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    expect(harness.gate.url).toBe(`http://localhost:${world.config.port}/`);
    const wrongHost = await postJson(
      harness.gate.port,
      "/relay",
      { op: "environments" },
      { host: "evil.example:80" },
    );
    expect(wrongHost.status).toBe(403);
    expect((await harness.relay({ op: "environments" })).status).toBe(200);
    // Another address of this machine (when it has one) finds nothing listening on the port.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address !== undefined && !address.internal && address.family === "IPv4");
    if (external !== undefined) {
      const socket = connect({ host: external.address, port: harness.gate.port });
      const [error] = (await once(socket, "error")) as [NodeJS.ErrnoException];
      expect(error.code).toBe("ECONNREFUSED");
    }
  });

  it("refuses a second gate on the same state directory", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    const second = startGate({
      config: world.config,
      log: () => undefined,
      handleSignals: false,
    });
    await expect(second).rejects.toMatchObject({ code: expect.stringMatching(/journal|state_dir/) });
    // The first gate is untouched by the attempt.
    expect((await harness.relay({ op: "environments" })).status).toBe(200);
  });

  it("starts closed, and removes its capability file when it closes", async () => {
    world = await startSimWorld(["alpha"]);
    harness = await startGateHarness({ world });
    expect(harness.gate.lease.list()).toEqual([]);
    await harness.gate.close();
    await expect(access(join(world.stateDir, CAPABILITY_FILE))).rejects.toMatchObject({ code: "ENOENT" });
    harness = undefined;
  });

  it("keeps a leftover preparing record for a retry and says so on its terminal", async () => {
    world = await startSimWorld(["alpha"]);
    const journal = await openJournal({ stateDir: world.stateDir });
    const alpha = world.env("alpha");
    await journal.reserve({
      environmentId: alpha.environmentId,
      destination: `t3://${alpha.environmentId}`,
      caller: "local:t3-connector-write|loopback",
      operationId: "op-left-behind",
      action: "thread.pin",
      input: { threadId: "t" },
    });
    await journal.close();
    harness = await startGateHarness({ world, verifyWorkspace: simulatorWorkspace });
    expect(harness.logs.join("\n")).toContain("1 open write(s) after the settle attempt: 0 uncertain");
    const reconcile = await harness.relay({
      op: "reconcile",
      environment: "alpha",
      operationId: "op-left-behind",
    });
    expect(reconcile.body).toMatchObject({ state: "preparing", settled: false });
    expect(alpha.model.receivedCommands).toEqual([]);
  });
});
