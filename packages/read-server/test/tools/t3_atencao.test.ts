import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { describe, expect, it } from "vitest";
import { t3AtencaoTool } from "../../src/tools/t3_atencao.js";
import {
  ALPHA_ID,
  BETA_ID,
  invalidInput,
  itemsOf,
  useTwoEnvironments,
  useTwoEnvironmentsWithAlphaAcl,
} from "./listing-support.js";

const TOOL = "t3_atencao";
const definitions = [t3AtencaoTool];

const ATTENTION = ["Choose test scope", "Deploy preview", "Plan: split packages", "Run the test suite?"];

function expectNewestFirst(items: Array<Record<string, unknown>>): void {
  const stamps = items.map((item) => Date.parse(String(item.updatedAt)));
  expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
}

describe("t3_atencao over two environments", () => {
  let setup: SimReadSetup;
  useTwoEnvironments(definitions, (started) => {
    setup = started;
  });

  it("lists interventions and unsettled failures of every environment, newest first", async () => {
    const result = await setup.call(TOOL, {});
    const keys = Object.keys(result);
    expect(keys.indexOf("total")).toBeLessThan(keys.indexOf("threads"));
    expect(result).toMatchObject({ total: 8, complete: true, environmentFailures: [] });
    expect(result.environment).toBeUndefined();
    expect(result.queriedEnvironments).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop", found: 4 },
      { alias: "beta", environmentId: BETA_ID, name: "Beta server", found: 4 },
    ]);
    const threads = itemsOf(result, "threads");
    expectNewestFirst(threads);
    for (const alias of ["alpha", "beta"]) {
      const titles = threads.filter((t) => t.environment.alias === alias).map((t) => String(t.title));
      expect(titles.sort()).toEqual(ATTENTION);
    }
    expect(threads.find((t) => t.title === "Deploy preview")).toMatchObject({
      state: "failed",
      settled: false,
    });
  });

  it("shows a thread waiting on a question with the request that blocks it", async () => {
    const result = await setup.call(TOOL, { environment: "beta" });
    expect(result.environment).toEqual({ alias: "beta", environmentId: BETA_ID });
    expect(result.total).toBe(4);
    const question = itemsOf(result, "threads").find((t) => t.title === "Choose test scope");
    expect(question).toMatchObject({
      environment: { alias: "beta", environmentId: BETA_ID, name: "Beta server" },
      state: "needs_intervention",
      stateSource: "pending_request",
      kind: "user_input",
      reason: "question waiting for an answer",
      identifier: { runtimeRequestId: expect.any(String) },
      since: expect.any(String),
    });
    const plan = itemsOf(result, "threads").find((t) => t.title === "Plan: split packages");
    expect(plan).toMatchObject({
      state: "needs_intervention",
      stateSource: "proposed_plan",
      kind: "proposed_plan",
    });
  });

  it("refuses an unknown environment and legacy keys", async () => {
    expect(await setup.callError(TOOL, { environment: "delta" })).toMatch(
      /^environment_unknown: .*alpha, beta/,
    );
    for (const args of [{ ambiente: "alpha" }, { busca: "x" }, { limite: 1 }, { estado: "failed" }]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
  });

  it("keeps the answering environment's threads and flags the one that failed", async () => {
    setup.sim.environment("beta").faults.set({ httpStatus: 502 });
    const result = await setup.call(TOOL, {});
    expect(result).toMatchObject({ total: 4, complete: false });
    expect(result.environmentFailures).toEqual([
      { alias: "beta", environmentId: BETA_ID, code: "http_502", reason: expect.any(String) },
    ]);
    expect(itemsOf(result, "threads").every((t) => t.environment.alias === "alpha")).toBe(true);
    const explicit = await setup.callError(TOOL, { environment: "beta" });
    // With the environment named, its failure is the tool's error instead of a flagged entry.
    expect(explicit).toMatch(/^http_error: .*HTTP 502/);
  });
});

describe("t3_atencao and the project ACL", () => {
  let setup: SimReadSetup;
  useTwoEnvironmentsWithAlphaAcl(definitions, ["t3-connector"], (started) => {
    ({ setup } = started);
  });

  it("leaves out threads of projects outside the environment's ACL", async () => {
    const result = await setup.call(TOOL, {});
    const alpha = itemsOf(result, "threads").filter((t) => t.environment.alias === "alpha");
    expect(alpha.map((t) => String(t.title)).sort()).toEqual(["Choose test scope", "Plan: split packages"]);
    expect(result.total).toBe(6);
  });
});
