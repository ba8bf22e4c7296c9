/**
 * An approval request that meets a protocol-1 T3 (the real 0.0.28's answers, ADR 0069): the
 * environment is left out naming that cause and version, and a request that reaches nothing else
 * is refused as `protocol_unsupported`, naming the environment, its version and the upgrade.
 */
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { startV1Server, type V1Server } from "@t3-connector/test-support/t3-v1-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nothingInventoried } from "../../src/approval/nothing-inventoried.js";

let gate: SimGate;
let v1: V1Server;
beforeEach(async () => {
  v1 = await startV1Server({ scopes: OPERATE_SCOPES });
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-a", title: "A", workspaceRoot: "/srv/a" }] }],
    otherServers: [{ alias: "old-box", environmentId: v1.environmentId, url: v1.url }],
  });
});
afterEach(async () => {
  await gate.close();
  await v1.close();
});

describe("an approval request beside a protocol-1 server", () => {
  it("leaves it out with its cause and version", async () => {
    const link = await gate.desk.request({});
    expect(link.leftOut).toEqual([
      {
        alias: "old-box",
        environmentId: v1.environmentId,
        reason: "protocol_unsupported",
        serverVersion: "0.0.28",
      },
    ]);
  });

  it("refuses a request that reaches nothing else, naming it, its version and the upgrade", async () => {
    await gate.sim.environment("alpha").stop();
    const refused = await gate.desk.request({}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: "environment_unavailable",
      details: {
        leftOut: expect.arrayContaining([
          expect.objectContaining({ alias: "old-box", serverVersion: "0.0.28" }),
        ]),
      },
    });
    expect((refused as Error).message).toContain(
      'environment "old-box" runs T3 0.0.28, which does not speak orchestration protocol 2; upgrade T3 to 0.0.46 or later',
    );
    expect((refused as Error).message).toContain('environment "alpha" could not be reached');
  });
});

describe("the refusal when nothing could be inventoried", () => {
  it("takes the one cause every environment shares as its code", () => {
    const left = {
      alias: "old-box",
      environmentId: "e1",
      reason: "protocol_unsupported",
      serverVersion: "0.0.45",
    };
    expect(nothingInventoried([left])).toMatchObject({
      code: "protocol_unsupported",
      message:
        'no environment could be inventoried: environment "old-box" runs T3 0.0.45, which does not speak ' +
        "orchestration protocol 2; upgrade T3 to 0.0.46 or later",
    });
    expect(nothingInventoried([left, { ...left, alias: "down", reason: "timeout" }]).code).toBe(
      "environment_unavailable",
    );
  });
});
