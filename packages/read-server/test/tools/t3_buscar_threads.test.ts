import type { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { describe, expect, it } from "vitest";
import { t3BuscarThreadsTool } from "../../src/tools/t3_buscar_threads.js";
import {
  ALPHA_ID,
  BETA_ID,
  invalidInput,
  itemsOf,
  nextHeld,
  projectIdByTitle,
  threadIdByTitle,
  useTwoEnvironmentsOnManualDeadlines,
  useTwoEnvironmentsWithAlphaAcl,
} from "./listing-support.js";

const TOOL = "t3_buscar_threads";
const definitions = [t3BuscarThreadsTool];

describe("t3_buscar_threads over two environments", () => {
  let setup: SimReadSetup;
  let deadlines: ManualDeadlines;
  useTwoEnvironmentsOnManualDeadlines(definitions, (started) => {
    ({ setup, deadlines } = started);
  });

  it("finds a title in every environment, ordered by environmentId, each with its environment", async () => {
    const result = await setup.call(TOOL, { search: "choose test" });
    const keys = Object.keys(result);
    expect(keys.indexOf("total")).toBeLessThan(keys.indexOf("threads"));
    expect(result).toMatchObject({
      total: 2,
      search: "choose test",
      match: "partial",
      returned: 2,
      truncated: false,
      complete: true,
      environmentFailures: [],
    });
    expect(result.environment).toBeUndefined();
    expect(result.evidenceIncomplete).toBeUndefined();
    const threads = itemsOf(result, "threads");
    expect(threads.map((t) => t.environment)).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop" },
      { alias: "beta", environmentId: BETA_ID, name: "Beta server" },
    ]);
    expect(threads[0]).toMatchObject({
      title: "Choose test scope",
      state: "needs_intervention",
      archived: false,
    });
    expect(Object.keys(threads[0] ?? {}).slice(0, 3)).toEqual(["threadId", "title", "environment"]);
  });

  it("finds archived threads and threads that never ran, which listings hide", async () => {
    const archived = itemsOf(
      await setup.call(TOOL, { search: "archived spike", environment: "alpha" }),
      "threads",
    );
    expect(archived).toMatchObject([{ title: "Archived spike", archived: true }]);
    const draft = itemsOf(await setup.call(TOOL, { search: "empty draft", environment: "alpha" }), "threads");
    expect(draft).toMatchObject([{ title: "Empty draft", state: "no_run", archived: false }]);
  });

  it("matches an exact threadId literally, only where it lives", async () => {
    const id = threadIdByTitle(setup.sim.environment("alpha"), "Deploy preview");
    const found = await setup.call(TOOL, { threadId: id });
    expect(found).toMatchObject({ total: 1, threadId: id, complete: true });
    expect(found.search).toBeUndefined();
    expect(itemsOf(found, "threads").map((t) => [t.environment.alias, t.threadId])).toEqual([["alpha", id]]);
    expect((await setup.call(TOOL, { threadId: id.toUpperCase() })).total).toBe(0);
    const elsewhere = await setup.call(TOOL, { threadId: id, environment: "beta" });
    expect(elsewhere).toMatchObject({
      environment: { alias: "beta", environmentId: BETA_ID },
      total: 0,
      threads: [],
    });
  });

  it("matches whole titles with match: exact, ignoring case and accents", async () => {
    const alpha = setup.sim.environment("alpha");
    alpha.model.addThread({
      projectId: projectIdByTitle(alpha, "scratch"),
      title: "Revisão Geral",
      state: "completed",
    });
    expect((await setup.call(TOOL, { search: "REVISAO geral", match: "exact" })).total).toBe(1);
    expect((await setup.call(TOOL, { search: "revisao", match: "exact" })).total).toBe(0);
    expect((await setup.call(TOOL, { search: "visão", match: "partial" })).total).toBe(1);
    expect((await setup.call(TOOL, { search: "CHOOSE test scope", match: "exact" })).total).toBe(2);
  });

  it("refuses ambiguous or empty queries", async () => {
    expect(await setup.callError(TOOL, {})).toMatch(/^invalid_input: give exactly one of search or threadId/);
    expect(await setup.callError(TOOL, { search: "a", threadId: "b" })).toMatch(/^invalid_input: /);
    expect(await setup.callError(TOOL, { threadId: "b", match: "exact" })).toMatch(
      /^invalid_input: match applies/,
    );
    expect(await setup.callError(TOOL, { search: "   " })).toMatch(/^invalid_input: /);
  });

  it("refuses an unknown environment and legacy keys", async () => {
    expect(await setup.callError(TOOL, { search: "x", environment: "nope" })).toMatch(
      /^environment_unknown: .*alpha, beta/,
    );
    for (const args of [
      { busca: "x" },
      { search: "x", ambiente: "alpha" },
      { search: "x", limite: 3 },
      { search: "x", estado: "running" },
    ]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
    expect((await invalidInput(setup, TOOL, { search: "x", match: "fuzzy" })).code).toBe("invalid_input");
  });

  it("flags the evidence as incomplete when a title search meets rows without a title", async () => {
    const beta = setup.sim.environment("beta");
    beta.model.addThread({ projectId: projectIdByTitle(beta, "scratch"), title: " ", state: "completed" });
    const result = await setup.call(TOOL, { search: "choose" });
    expect(result).toMatchObject({
      total: 2,
      complete: false,
      evidenceIncomplete: true,
      environmentFailures: [],
    });
    // A literal ID search does not depend on titles.
    const byId = await setup.call(TOOL, { threadId: threadIdByTitle(beta, "Empty draft") });
    expect(byId).toMatchObject({ total: 1, complete: true });
  });

  it("pages by environmentId then threadId, and binds the cursor to the query and the answered set", async () => {
    for (const env of setup.sim.environments) {
      const projectId = projectIdByTitle(env, "scratch");
      for (let i = 0; i < 12; i++)
        env.model.addThread({ projectId, title: `Lote ${i}`, state: i % 3 ? "completed" : "idle" });
    }
    const seen: Array<[string, string]> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await setup.call(TOOL, { search: "lote", limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(24);
      seen.push(
        ...itemsOf(page, "threads").map((t): [string, string] => [
          t.environment.environmentId,
          String(t.threadId),
        ]),
      );
      cursor = page.nextCursor as string | undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(5);
    expect(seen.length).toBe(24);
    const sorted = [...seen].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
    expect(seen).toEqual(sorted);
    expect(new Set(seen.map((s) => s.join("/"))).size).toBe(24);

    const first = await setup.call(TOOL, { search: "lote", limit: 5 });
    for (const args of [
      { search: "lot" },
      { search: "lote", match: "exact" },
      { search: "lote", environment: "alpha" },
    ]) {
      expect(await setup.callError(TOOL, { ...args, limit: 5, cursor: first.nextCursor })).toMatch(
        /^invalid_cursor: /,
      );
    }
    const beta = setup.sim.environment("beta");
    beta.faults.set({ hang: true });
    const text = await deadlines.timingOut(
      "beta",
      () => setup.callError(TOOL, { search: "lote", limit: 5, cursor: first.nextCursor }),
      nextHeld(beta), // beta really was asked and stayed silent
    );
    expect(text).toMatch(/^coverage_changed: /);
  });

  it("returns what the answering environment has when the other one fails", async () => {
    setup.sim.environment("alpha").faults.set({ httpStatus: 500 });
    const result = await setup.call(TOOL, { search: "deploy preview" });
    expect(result).toMatchObject({ total: 1, complete: false });
    expect(result.environmentFailures).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, code: "http_500", reason: expect.any(String) },
    ]);
    expect(itemsOf(result, "threads").map((t) => t.environment.alias)).toEqual(["beta"]);
  });
});

describe("t3_buscar_threads and the project ACL", () => {
  let setup: SimReadSetup;
  useTwoEnvironmentsWithAlphaAcl(definitions, ["t3-connector", "scratch"], (started) => {
    ({ setup } = started);
  });

  it("never finds a thread of a project outside the ACL, and answers its id like an unknown one", async () => {
    const result = await setup.call(TOOL, { search: "deploy preview" });
    expect(itemsOf(result, "threads").map((t) => t.environment.alias)).toEqual(["beta"]);
    const hiddenId = threadIdByTitle(setup.sim.environment("alpha"), "Deploy preview");
    const hidden = await setup.call(TOOL, { threadId: hiddenId, environment: "alpha" });
    const unknown = await setup.call(TOOL, { threadId: "no-such-thread", environment: "alpha" });
    expect({ ...hidden, threadId: "<id>" }).toEqual({ ...unknown, threadId: "<id>" });
    expect(hidden.total).toBe(0);
  });
});
