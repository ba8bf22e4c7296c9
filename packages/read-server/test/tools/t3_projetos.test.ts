import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3ProjetosTool } from "../../src/tools/t3_projetos.js";
import {
  ALPHA_ID,
  BETA_ID,
  demoAclWith,
  demoProjectIds,
  invalidInput,
  itemsOf,
  nextHeld,
  startTwoEnvironments,
} from "./listing-support.js";

const TOOL = "t3_projetos";
const definitions = [t3ProjetosTool];

const label = (item: { title?: unknown; environment: { alias: string } }) =>
  `${item.environment.alias}:${String(item.title)}`;

describe("t3_projetos over two environments", () => {
  let setup: SimReadSetup;
  // A deadline expires only when a test expires it: no environment misses one on a loaded machine.
  let deadlines: ManualDeadlines;
  const added = Array.from({ length: 9 }, (_, i) => `added-project-${i}`);
  beforeEach(async () => {
    deadlines = new ManualDeadlines();
    setup = await startTwoEnvironments(definitions, {
      allowedProjects: await demoAclWith({ beta: added }),
      deadlines,
    });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("lists every environment's projects by title, then environment, with state counts", async () => {
    const result = await setup.call(TOOL, {});
    const keys = Object.keys(result);
    expect(keys.indexOf("total")).toBeLessThan(keys.indexOf("projects"));
    expect(result).toMatchObject({
      total: 6,
      returned: 6,
      truncated: false,
      complete: true,
      environmentFailures: [],
    });
    expect(result.environment).toBeUndefined();
    expect(result.nextCursor).toBeUndefined();
    const projects = itemsOf(result, "projects");
    expect(projects.map(label)).toEqual([
      "alpha:scratch",
      "beta:scratch",
      "alpha:t3-connector",
      "beta:t3-connector",
      "alpha:website",
      "beta:website",
    ]);
    expect(projects[2]).toEqual({
      projectId: expect.any(String),
      title: "t3-connector",
      environment: { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop" },
      directory: "/home/sim/code/t3-connector",
      runningThreads: 2,
      threadsNeedingIntervention: 2,
    });
    expect(projects[4]).toMatchObject({ runningThreads: 0, threadsNeedingIntervention: 1 });
    expect(result.queriedEnvironments).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop", found: 3 },
      { alias: "beta", environmentId: BETA_ID, name: "Beta server", found: 3 },
    ]);
  });

  it("reads only the named environment and names it at the top", async () => {
    const result = await setup.call(TOOL, { environment: BETA_ID });
    expect(result.environment).toEqual({ alias: "beta", environmentId: BETA_ID });
    expect(itemsOf(result, "projects").every((p) => p.environment.alias === "beta")).toBe(true);
    expect(result.total).toBe(3);
  });

  it("refuses an unknown environment, naming the aliases", async () => {
    const text = await setup.callError(TOOL, { environment: "nowhere" });
    expect(text).toMatch(/^environment_unknown: .*alpha, beta/);
  });

  it("refuses legacy keys as an invalid_input tool error", async () => {
    for (const args of [
      { ambiente: "alpha" },
      { busca: "web" },
      { limite: 2 },
      { estado: "x" },
      { limit: 0 },
    ]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
  });

  it("searches titles and ids ignoring case and accents", async () => {
    const beta = setup.sim.environment("beta");
    beta.model.addProject({ id: added[8], title: "Área de Testes", workspaceRoot: "/tmp/area" });
    for (const search of ["area", "ÁREA DE", "testes"]) {
      const result = await setup.call(TOOL, { search });
      expect(result.search).toBe(search);
      expect(itemsOf(result, "projects").map(label)).toEqual(["beta:Área de Testes"]);
    }
    const [first] = itemsOf(await setup.call(TOOL, { environment: "alpha", search: "website" }), "projects");
    const byId = await setup.call(TOOL, { search: String(first?.projectId).toUpperCase() });
    expect(itemsOf(byId, "projects").map(label)).toEqual(["alpha:website"]);
  });

  it("pages with cursors in a total order, and refuses a cursor of another query", async () => {
    const beta = setup.sim.environment("beta");
    // Same title on purpose: the order falls back to the projectId.
    for (let i = 0; i < 8; i++) {
      beta.model.addProject({ id: added[i], title: i % 2 ? "Ópera" : "opera", workspaceRoot: `/tmp/o${i}` });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await setup.call(TOOL, { limit: 4, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(14);
      seen.push(
        ...itemsOf(page, "projects").map((p) => `${p.environment.environmentId}/${String(p.projectId)}`),
      );
      cursor = page.nextCursor as string | undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(14);
    const all = itemsOf(await setup.call(TOOL, {}), "projects");
    expect(seen).toEqual(all.map((p) => `${p.environment.environmentId}/${String(p.projectId)}`));
    const operas = all.filter((p) => String(p.title).toLowerCase().endsWith("pera"));
    const ids = operas.map((p) => String(p.projectId));
    expect(ids).toEqual([...ids].sort());

    const first = await setup.call(TOOL, { limit: 4 });
    for (const args of [{ search: "o" }, { environment: "beta" }]) {
      const text = await setup.callError(TOOL, { limit: 4, cursor: first.nextCursor, ...args });
      expect(text).toMatch(/^invalid_cursor: /);
    }
  });

  it("says the coverage changed when an environment stops answering between pages", async () => {
    const first = await setup.call(TOOL, { limit: 2 });
    const alpha = setup.sim.environment("alpha");
    alpha.faults.set({ hang: true });
    const text = await deadlines.timingOut(
      "alpha",
      () => setup.callError(TOOL, { limit: 2, cursor: first.nextCursor }),
      nextHeld(alpha), // alpha really was asked and stayed silent
    );
    expect(text).toMatch(/^coverage_changed: /);
  });

  it("returns the projects of the environment that answered when the other fails", async () => {
    setup.sim.environment("alpha").faults.set({ httpStatus: 503 });
    const result = await setup.call(TOOL, {});
    expect(result.complete).toBe(false);
    expect(result.environmentFailures).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, code: "http_503", reason: expect.any(String) },
    ]);
    expect(itemsOf(result, "projects").map(label)).toEqual([
      "beta:scratch",
      "beta:t3-connector",
      "beta:website",
    ]);
  });
});

describe("t3_projetos and the project ACL", () => {
  let setup: SimReadSetup;
  let ids: Record<string, Record<string, string>>;
  beforeEach(async () => {
    ids = await demoProjectIds();
    setup = await startTwoEnvironments(definitions, { allowedProjects: { beta: [ids.beta?.website ?? ""] } });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("shows only allowed projects, and a hidden one searched by id answers like an unknown id", async () => {
    const result = await setup.call(TOOL, { environment: "beta" });
    expect(itemsOf(result, "projects").map(label)).toEqual(["beta:website"]);
    const hidden = await setup.call(TOOL, { environment: "beta", search: ids.beta?.scratch ?? "" });
    const unknown = await setup.call(TOOL, { environment: "beta", search: "no-such-project" });
    expect(hidden.total).toBe(0);
    const { search: _a, ...hiddenRest } = hidden;
    const { search: _b, ...unknownRest } = unknown;
    expect(hiddenRest).toEqual(unknownRest);
  });
});
