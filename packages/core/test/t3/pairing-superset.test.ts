/**
 * A pairing code that grants more than asked (the 0.0.46 age's `scopeGrant: superset`, ADR 0069):
 * refused, the token discarded, and the message says exactly what was granted and how to pair
 * with a narrower code. An exact grant, as before, pairs with exactly orchestration:read.
 */
import { exchangePairingCode } from "@t3-connector/core/t3";
import { type Simulator, SUPERSET_EXTRA_SCOPE, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "exact", seed: "empty", unknowns: { scopeGrant: "exact" } },
      { alias: "wider", seed: "empty", unknowns: { scopeGrant: "superset" } },
    ],
  });
});
afterAll(async () => {
  await sim.close();
});

const pair = (alias: string) => {
  const env = sim.environment(alias);
  return exchangePairingCode({
    baseUrl: env.url,
    code: env.createPairingCode({}),
    scopes: ["orchestration:read"],
    clientLabel: "test",
  });
};

describe("a pairing that grants a superset", () => {
  it("is refused, naming what was granted and how to pair narrower", async () => {
    const refused = await pair("wider").then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(refused?.code).toBe("scope_not_granted");
    expect(refused?.message).toContain(`granted beyond the request: ${SUPERSET_EXTRA_SCOPE}`);
    expect(refused?.message).toContain(`T3 granted exactly orchestration:read ${SUPERSET_EXTRA_SCOPE}`);
    expect(refused?.message).toContain("Create a pairing code in T3 that allows only orchestration:read");
  });

  it("an exact grant pairs with exactly orchestration:read", async () => {
    expect((await pair("exact")).scopes).toEqual(["orchestration:read"]);
  });
});
