import type { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { describe, expect, it } from "vitest";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";
import {
  ALPHA_ID,
  BETA_ID,
  dropVisitedWatermark,
  invalidInput,
  itemsOf,
  nextHeld,
  projectIdByTitle,
  threadIdByTitle,
  useTwoEnvironmentsOnManualDeadlines,
  useTwoEnvironmentsWithAlphaAcl,
} from "./listing-support.js";

const TOOL = "t3_threads";
const definitions = [t3ThreadsTool];

function listingKey(item: Record<string, unknown>): [number, string, string] {
  const env = item.environment as { environmentId: string };
  return [Date.parse(String(item.updatedAt)), env.environmentId, String(item.threadId)];
}

function expectListingOrder(items: Array<Record<string, unknown>>): void {
  for (let i = 1; i < items.length; i++) {
    const [t0, e0, id0] = listingKey(items[i - 1] as Record<string, unknown>);
    const [t1, e1, id1] = listingKey(items[i] as Record<string, unknown>);
    const ordered = t0 > t1 || (t0 === t1 && (e0 < e1 || (e0 === e1 && id0 < id1)));
    expect(ordered, `item ${i} out of order`).toBe(true);
  }
}

async function allPages(setup: SimReadSetup, args: Record<string, unknown>) {
  const pages: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const page = await setup.call(TOOL, { ...args, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

describe("t3_threads over two environments", () => {
  let setup: SimReadSetup;
  let deadlines: ManualDeadlines;
  useTwoEnvironmentsOnManualDeadlines(definitions, (started) => {
    ({ setup, deadlines } = started);
  });

  it("sweeps every environment, answers total before the list and orders newest first", async () => {
    const result = await setup.call(TOOL, {});
    const keys = Object.keys(result);
    expect(keys.indexOf("total")).toBeLessThan(keys.indexOf("threads"));
    expect(result.environment).toBeUndefined();
    // 14 listable demo threads per environment, one of them never ran (hidden by default).
    expect(result.total).toBe(26);
    expect(result.hiddenNoRun).toBe(2);
    expect(result.note).toBe(
      "2 threads that never ran are not listed; call again with includeNoRun: true to list them too.",
    );
    expect(result.returned).toBe(20);
    expect(result.truncated).toBe(true);
    expect(typeof result.nextCursor).toBe("string");
    expect(result.complete).toBe(true);
    expect(result.environmentFailures).toEqual([]);
    expect(result.queriedEnvironments).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop", found: 13 },
      { alias: "beta", environmentId: BETA_ID, name: "Beta server", found: 13 },
    ]);
    const threads = itemsOf(result, "threads");
    expectListingOrder(threads);
    expect(Object.keys(threads[0] ?? {}).slice(0, 3)).toEqual(["threadId", "title", "environment"]);
    const question = threads.find((t) => t.title === "Choose test scope" && t.environment.alias === "beta");
    expect(question).toMatchObject({
      environment: { alias: "beta", environmentId: BETA_ID, name: "Beta server" },
      state: "needs_intervention",
      stateSource: "pending_request",
      kind: "user_input",
      project: { title: "t3-connector" },
      settled: false,
    });
    expect(threads.some((t) => t.title === "Archived spike")).toBe(false);
  });

  it("reads only the named environment and names it at the top, by alias or by environmentId", async () => {
    for (const environment of ["alpha", ALPHA_ID]) {
      const result = await setup.call(TOOL, { environment, includeNoRun: true, limit: 50 });
      expect(result.environment).toEqual({ alias: "alpha", environmentId: ALPHA_ID });
      expect(result.total).toBe(14);
      expect(result.hiddenNoRun).toBeUndefined();
      expect(result.queriedEnvironments).toEqual([
        { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop", found: 14 },
      ]);
      expect(itemsOf(result, "threads").every((t) => t.environment.alias === "alpha")).toBe(true);
    }
  });

  it("refuses an unknown environment and lists the configured aliases", async () => {
    const text = await setup.callError(TOOL, { environment: "gamma" });
    expect(text).toMatch(/^environment_unknown: /);
    expect(text).toContain("alpha, beta");
  });

  it("refuses legacy and unknown keys and old enum values as an invalid_input tool error", async () => {
    for (const args of [{ ambiente: "alpha" }, { busca: "x" }, { limite: 5 }, { estado: "running" }]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
    expect((await invalidInput(setup, TOOL, { state: "rodando" })).code).toBe("invalid_input");
    expect((await invalidInput(setup, TOOL, { limit: 51 })).code).toBe("invalid_input");
  });

  it("lists threads that never ran when asked for their state, without a hidden count", async () => {
    const result = await setup.call(TOOL, { state: "no_run" });
    expect(result.hiddenNoRun).toBeUndefined();
    const listed = itemsOf(result, "threads").map(
      (t) => `${t.environment.alias}:${t.title}:${t.stateSource}`,
    );
    expect(listed.sort()).toEqual(["alpha:Empty draft:no_run", "beta:Empty draft:no_run"]);
  });

  it("filters by state and keeps the other environment's threads when one fails", async () => {
    setup.sim.environment("beta").faults.set({ httpStatus: 500 });
    const result = await setup.call(TOOL, { state: "needs_intervention" });
    expect(result.complete).toBe(false);
    expect(result.environmentFailures).toEqual([
      { alias: "beta", environmentId: BETA_ID, code: "http_500", reason: expect.any(String) },
    ]);
    const threads = itemsOf(result, "threads");
    expect(threads.map((t) => t.title).sort()).toEqual([
      "Choose test scope",
      "Plan: split packages",
      "Run the test suite?",
    ]);
    expect(threads.every((t) => t.environment.alias === "alpha" && t.state === "needs_intervention")).toBe(
      true,
    );
  });

  it("finds titles ignoring case and accents, and by part of the threadId", async () => {
    const alpha = setup.sim.environment("alpha");
    const id = alpha.model.addThread({
      projectId: projectIdByTitle(alpha, "scratch"),
      title: "Revisão do Parser",
      state: "completed",
    });
    for (const search of ["REVISAO", "são do", "revisão"]) {
      const result = await setup.call(TOOL, { search });
      expect(result.search).toBe(search);
      expect(itemsOf(result, "threads").map((t) => t.threadId)).toEqual([id]);
    }
    const byId = await setup.call(TOOL, { search: id.slice(-10).toUpperCase() });
    expect(itemsOf(byId, "threads").map((t) => t.threadId)).toEqual([id]);
  });

  it("walks several pages with cursors, each item once, in one total order", async () => {
    const beta = setup.sim.environment("beta");
    const projectId = projectIdByTitle(beta, "scratch");
    const base = Date.now() - 3_600_000;
    // Identical updatedAt for some rows: the order must still be total (environmentId, threadId).
    for (let i = 0; i < 30; i++) {
      beta.model.addThread({ projectId, title: `Bulk ${i}`, state: "completed", at: base + (i % 5) * 1_000 });
    }
    const everything = await setup.call(TOOL, { limit: 50 });
    const pages = await allPages(setup, { limit: 7 });
    expect(pages.length).toBe(Math.ceil(56 / 7));
    for (const page of pages) expect(page.total).toBe(56);
    const walked = pages.flatMap((page) => itemsOf(page, "threads"));
    expect(walked.length).toBe(56);
    expect(new Set(walked.map((t) => `${t.environment.environmentId}/${t.threadId}`)).size).toBe(56);
    expectListingOrder(walked);
    expect(walked.slice(0, 50).map((t) => t.threadId)).toEqual(
      itemsOf(everything, "threads").map((t) => t.threadId),
    );
    expect(pages.at(-1)?.truncated).toBe(false);
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
  });

  it("refuses a cursor reused with other filters or another environment filter", async () => {
    const first = await setup.call(TOOL, { limit: 3 });
    const cursor = first.nextCursor as string;
    for (const args of [
      { cursor, limit: 3, state: "completed" },
      { cursor, limit: 3, environment: "alpha" },
      { cursor, limit: 3, search: "fix" },
      { cursor, limit: 3, woke: false },
    ]) {
      expect(await setup.callError(TOOL, args)).toMatch(/^invalid_cursor: .*another query/);
    }
    expect(await setup.callError(TOOL, { cursor: "not-a-cursor" })).toMatch(/^invalid_cursor: /);
    // The same query with another page size is the same traversal.
    const next = await setup.call(TOOL, { cursor, limit: 5 });
    expect(next.returned).toBe(5);
  });

  it("drops threads that changed after the first page and counts them in changedSinceStart", async () => {
    const first = await setup.call(TOOL, { limit: 5 });
    expect(first.changedSinceStart).toBeUndefined();
    const beta = setup.sim.environment("beta");
    const fresh = beta.model.addThread({
      projectId: projectIdByTitle(beta, "scratch"),
      title: "Started meanwhile",
      state: "completed",
      at: Date.now() + 60_000,
    });
    const second = await setup.call(TOOL, { limit: 50, cursor: first.nextCursor });
    expect(second.changedSinceStart).toBe(1);
    expect(second.total).toBe(27);
    expect(itemsOf(second, "threads").some((t) => t.threadId === fresh)).toBe(false);
    expect(second.returned).toBe(21);
  });

  it("says the coverage changed when an environment stops answering between pages", async () => {
    const first = await setup.call(TOOL, { limit: 4 });
    expect(first.complete).toBe(true);
    const beta = setup.sim.environment("beta");
    beta.faults.set({ hang: true });
    const text = await deadlines.timingOut(
      "beta",
      () => setup.callError(TOOL, { limit: 4, cursor: first.nextCursor }),
      nextHeld(beta), // beta really was asked and stayed silent
    );
    expect(text).toMatch(/^coverage_changed: /);
  });

  it("filters on the woke marker before paging", async () => {
    const woke = await setup.call(TOOL, { woke: true });
    const threads = itemsOf(woke, "threads");
    expect(threads.map((t) => `${t.environment.alias}:${t.title}`).sort()).toEqual([
      "alpha:Snoozed and woken",
      "beta:Snoozed and woken",
    ]);
    expect(threads.every((t) => t.woke === true && typeof t.wokeAt === "string")).toBe(true);
    const notWoke = await setup.call(TOOL, { woke: false, limit: 50 });
    expect(notWoke.total).toBe(24);
  });

  it("refuses the woke filter where the server cannot decide it instead of returning a partial list", async () => {
    const alpha = setup.sim.environment("alpha");
    dropVisitedWatermark(alpha, threadIdByTitle(alpha, "Snoozed and woken"));
    expect(await setup.callError(TOOL, { environment: "alpha", woke: true })).toMatch(
      /^invalid_input: The woke filter cannot be decided/,
    );
    const swept = await setup.call(TOOL, { woke: true });
    expect(swept.complete).toBe(false);
    expect(swept.environmentFailures).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, code: "refused", reason: expect.stringContaining("woke") },
    ]);
    expect(itemsOf(swept, "threads").map((t) => t.environment.alias)).toEqual(["beta"]);
    // Where no environment can decide it, the answer is an envelope of refusals, never an empty "complete" list.
    const beta = setup.sim.environment("beta");
    dropVisitedWatermark(beta, threadIdByTitle(beta, "Snoozed and woken"));
    const nowhere = await setup.call(TOOL, { woke: false });
    expect(nowhere).toMatchObject({ total: 0, complete: false, queriedEnvironments: [], threads: [] });
    expect((nowhere.environmentFailures as Array<{ code: string }>).map((f) => f.code)).toEqual([
      "refused",
      "refused",
    ]);
    // Without the filter the undecidable row is listed with woke: null.
    const plain = await setup.call(TOOL, { environment: "alpha", search: "Snoozed and woken" });
    expect(itemsOf(plain, "threads")[0]?.woke).toBeNull();
  });
});

describe("t3_threads and the project ACL", () => {
  let setup: SimReadSetup;
  let ids: Record<string, Record<string, string>>;
  // alpha hides "website"; beta shows everything.
  useTwoEnvironmentsWithAlphaAcl(definitions, ["t3-connector", "scratch"], (started) => {
    ({ setup, ids } = started);
  });

  it("never lists threads of a project outside the environment's ACL", async () => {
    const result = await setup.call(TOOL, { environment: "alpha", limit: 50 });
    const titles = itemsOf(result, "threads").map((t) => t.title);
    expect(titles).toContain("Choose test scope");
    for (const hidden of ["Release checklist", "Deploy preview", "Run the test suite?"]) {
      expect(titles).not.toContain(hidden);
    }
    const swept = await setup.call(TOOL, { search: "Deploy preview" });
    expect(itemsOf(swept, "threads").map((t) => t.environment.alias)).toEqual(["beta"]);
  });

  it("answers a project outside the ACL exactly like a project that does not exist", async () => {
    const hidden = ids.alpha?.website ?? "";
    const outside = await setup.callError(TOOL, { environment: "alpha", projectId: hidden });
    const missing = await setup.callError(TOOL, { environment: "alpha", projectId: "no-such-project" });
    expect(outside).toMatch(/^out_of_scope: /);
    expect(outside.replace(hidden, "<id>")).toBe(missing.replace("no-such-project", "<id>"));
  });

  it("during a sweep lists the project where it is authorized and flags the others as refused", async () => {
    const connector = ids.alpha?.["t3-connector"] ?? "";
    const result = await setup.call(TOOL, { projectId: connector, limit: 50 });
    const threads = itemsOf(result, "threads");
    expect(threads.length).toBeGreaterThan(0);
    expect(threads.every((t) => t.environment.alias === "alpha")).toBe(true);
    expect(result.complete).toBe(false);
    expect(result.environmentFailures).toEqual([
      { alias: "beta", environmentId: BETA_ID, code: "refused", reason: expect.stringContaining(connector) },
    ]);
    const nowhere = await setup.callError(TOOL, { projectId: ids.alpha?.website ?? "" });
    expect(nowhere).toMatch(/^out_of_scope: .*any environment that answered \(alpha, beta\)/);
  });

  it("refuses without claiming absence when the project is nowhere that answered and an environment failed", async () => {
    setup.sim.environment("beta").faults.set({ httpStatus: 500 });
    const text = await setup.callError(TOOL, { projectId: ids.alpha?.website ?? "" });
    expect(text).toMatch(/^out_of_scope: .*answered \(alpha\); did not answer: beta \(http_500\)/);
  });
});
