/**
 * `t3_find_threads` (ADR 0074) over two simulated environments: one shell read each answers every
 * query; an exact title resolves, a fragment two titles share is ambiguous with both candidates,
 * a nonsense query is not_found, an id resolves exactly, and when an environment does not answer
 * every query is inconclusive rather than a guess.
 */
import { randomUUID } from "node:crypto";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_FIND_QUERIES, t3FindThreadsTool } from "../../src/tools/t3_find_threads.js";
import { invalidInput, useTwoEnvironmentsOnManualDeadlines } from "./listing-support.js";

const TOOL = "t3_find_threads";
const QUOKKA = randomUUID();
const WOMBATS = [randomUUID(), randomUUID()];

describe("t3_find_threads", () => {
  let setup: SimReadSetup;
  useTwoEnvironmentsOnManualDeadlines([t3FindThreadsTool], (started) => {
    setup = started.setup;
  });

  beforeEach(() => {
    const alpha = setup.sim.environment("alpha");
    const [project] = alpha.model.store.projects.values();
    if (project === undefined) throw new Error("alpha has no project");
    alpha.model.addThread({ id: QUOKKA, projectId: project.id, title: "Quokka plan" });
    alpha.model.addThread({ id: WOMBATS[0] as string, projectId: project.id, title: "Wombat audit: costs" });
    alpha.model.addThread({
      id: WOMBATS[1] as string,
      projectId: project.id,
      title: "Wombat audit: logs",
      archived: true,
    });
  });

  it("answers resolved, ambiguous with both candidates, and not_found, from one read per environment", async () => {
    const result = await setup.call(TOOL, { queries: ["QUOKKA PLAN", "wömbat audit", "no such thread zz9"] });
    expect(result).toMatchObject({
      complete: true,
      environmentFailures: [],
      summary: { resolved: 1, ambiguous: 1, not_found: 1, inconclusive: 0 },
    });
    const [quokka, wombats, nothing] = result.results as Record<string, unknown>[];
    expect(quokka).toMatchObject({
      index: 0,
      resolution: "resolved",
      matchedBy: "title",
      thread: { threadId: QUOKKA, title: "Quokka plan", environment: { alias: "alpha" } },
      candidates: [],
    });
    expect(wombats).toMatchObject({
      resolution: "ambiguous",
      matchedBy: "partial",
      total: 2,
      truncated: false,
    });
    expect(
      ((wombats?.candidates ?? []) as { threadId: string; archived: boolean }[]).map((c) => [
        c.threadId,
        c.archived,
      ]),
    ).toEqual([...WOMBATS].sort().map((id) => [id, id === WOMBATS[1]]));
    expect(nothing).toMatchObject({ resolution: "not_found", total: 0, candidates: [], matchedBy: null });
  });

  it("resolves an exact id even where it is part of no title, and prefers the whole title over a part", async () => {
    const result = await setup.call(TOOL, {
      queries: [WOMBATS[0] as string, "wombat audit: logs"],
      environment: "alpha",
    });
    const [byId, byTitle] = result.results as Record<string, unknown>[];
    expect(byId).toMatchObject({
      resolution: "resolved",
      matchedBy: "threadId",
      thread: { threadId: WOMBATS[0] },
    });
    expect(byTitle).toMatchObject({
      resolution: "resolved",
      matchedBy: "title",
      thread: { threadId: WOMBATS[1] },
    });
  });

  it("says inconclusive for every query when an environment does not answer", async () => {
    setup.sim.environment("beta").faults.set({ httpStatus: 500 });
    const result = await setup.call(TOOL, { queries: ["Quokka plan", "no such thread zz9"] });
    expect(result).toMatchObject({ complete: false, summary: { inconclusive: 2 } });
    expect((result.results as Record<string, unknown>[])[0]).toMatchObject({
      resolution: "inconclusive",
      total: 1,
      candidates: [{ threadId: QUOKKA }],
    });
  });

  it("bounds the answer: at most 50 queries, and candidates per query as asked", async () => {
    const tooMany = Array.from({ length: MAX_FIND_QUERIES + 1 }, (_, index) => `q${index}`);
    expect((await invalidInput(setup, TOOL, { queries: tooMany })).code).toBe("invalid_input");
    expect((await invalidInput(setup, TOOL, { queries: [] })).code).toBe("invalid_input");
    const one = await setup.call(TOOL, { queries: ["wombat audit"], candidates: 1 });
    expect((one.results as Record<string, unknown>[])[0]).toMatchObject({ total: 2, truncated: true });
    expect((((one.results as Record<string, unknown>[])[0]?.candidates ?? []) as unknown[]).length).toBe(1);
  });
});
