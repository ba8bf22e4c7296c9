/**
 * The inbox's world on the simulator (ADR 0073): two environments, two agents waiting on an
 * approval (one in each), one on a question, and one client's pending lease request. The unit
 * tests and the page in Chromium start the same world.
 */
import type { ProjectSeed, SimGate } from "./sim-gate.js";

export const INBOX_ENVIRONMENTS: { alias: string; projects: ProjectSeed[] }[] = [
  { alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] },
  { alias: "beta", projects: [{ id: "p-web", title: "Web", workspaceRoot: "/work/web" }] },
];

/** Adds the three waiting threads, oldest first from `since`, and the client's lease request. */
export async function seedInboxWorld(gate: SimGate, since: number): Promise<void> {
  const alpha = gate.sim.environment("alpha").model;
  const beta = gate.sim.environment("beta").model;
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
  await gate.desk.request({ actions: ["thread.pin"], purpose: "pin the deploy thread" });
}
