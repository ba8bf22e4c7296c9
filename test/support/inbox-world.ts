/**
 * The inbox's world on the simulator (ADR 0073): two environments, two agents waiting on an
 * approval (one in each), one on a question, and one client's pending lease request. The unit
 * tests and the page in Chromium start the same world.
 */
import type { Simulator } from "@t3-connector/t3-sim";
import type { ProjectSeed, SimGate } from "./sim-gate.js";

export const INBOX_ENVIRONMENTS: { alias: string; projects: ProjectSeed[] }[] = [
  { alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] },
  { alias: "beta", projects: [{ id: "p-web", title: "Web", workspaceRoot: "/work/web" }] },
];

/** Adds the three waiting threads, oldest first from `since`, and the client's lease request. */
export async function seedInboxWorld(gate: SimGate, since: number): Promise<void> {
  addWaitingThreads(gate.sim, since);
  await gate.desk.request({ actions: ["thread.pin"], purpose: "pin the deploy thread" });
}

/** Adds INBOX_ENVIRONMENTS' projects to a simulator started with other seeds (the CLI's world). */
export function addInboxProjects(sim: Simulator): void {
  for (const { alias, projects } of INBOX_ENVIRONMENTS)
    for (const project of projects) sim.environment(alias).model.addProject(project);
}

/** The three waiting threads alone, oldest first from `since`: two approvals and a question. */
export function addWaitingThreads(sim: Simulator, since: number): void {
  const alpha = sim.environment("alpha").model;
  const beta = sim.environment("beta").model;
  alpha.addThread({
    id: "t-deploy",
    projectId: "p-api",
    title: "Deploy",
    state: "waiting_approval",
    at: since,
  });
  beta.addThread({
    id: "t-tests",
    projectId: "p-web",
    title: "Run tests",
    state: "waiting_approval",
    at: since + 1000,
  });
  beta.addThread({
    id: "t-scope",
    projectId: "p-web",
    title: "Choose scope",
    state: "waiting_user_input",
    at: since + 2000,
  });
}
