import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { startSimRead } from "@t3-connector/test-support/sim-context";
import { startV1Server, type V1Server } from "@t3-connector/test-support/t3-v1-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3AmbientesTool } from "../../src/tools/t3_ambientes.js";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";

/**
 * A protocol-1 T3 with threads (the real 0.0.28's answers, ADR 0069) beside a protocol-2 one: the
 * reads name it `protocol_unsupported` with its version and serve the other, never `http_200`.
 */
describe("reads beside a protocol-1 server", () => {
  let v1: V1Server;
  let setup: SimReadSetup;
  beforeEach(async () => {
    v1 = await startV1Server();
    setup = await startSimRead({
      simulator: { environments: [{ alias: "alpha", environmentId: "env-alpha", seed: "demo" }] },
      definitions: [t3AmbientesTool, t3ThreadsTool],
      otherServers: [{ alias: "old-box", environmentId: v1.environmentId, url: v1.url }],
      deadlines: new ManualDeadlines(),
    });
  });
  afterEach(async () => {
    await setup.close();
    await v1.close();
  });

  it("t3_ambientes reports protocol_unsupported with the version and the upgrade", async () => {
    const { environments } = (await setup.call("t3_ambientes", {})) as {
      environments: Array<Record<string, unknown>>;
    };
    expect(environments[0]).toMatchObject({ alias: "alpha", available: true });
    expect(environments[1]).toMatchObject({
      alias: "old-box",
      available: false,
      error: {
        code: "protocol_unsupported",
        reason:
          "the server (T3 0.0.28) does not speak orchestration protocol 2; upgrade T3 to 0.0.46 or later",
      },
    });
  });

  it("a listing serves the protocol-2 environment and names the other's failure", async () => {
    const result = (await setup.call("t3_threads", {})) as {
      threads: unknown[];
      environmentFailures: Array<Record<string, unknown>>;
    };
    expect(result.threads.length).toBeGreaterThan(0);
    expect(result.environmentFailures).toEqual([
      expect.objectContaining({ alias: "old-box", code: "protocol_unsupported" }),
    ]);
  });
});
