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

/** A line longer than any phone: the diff page must scroll it inside its file, never the page. */
export const LONG_LINE = `export const config = "${"a-very-long-value-".repeat(24)}";`;

/** What a seeded diff thread's second run edits (its title and id name it in the inbox). */
export interface DiffThreadSeed {
  readonly threadId: string;
  readonly title: string;
  /** The second run's message: simulator directives (`[[sim:edit=…]]`, `[[sim:bulk=…]]`). */
  readonly edits: string;
}

/** Two files edited, one of them with `LONG_LINE`. */
export const EDIT_THREAD: DiffThreadSeed = {
  threadId: "t-edit",
  title: "Edit the config",
  edits: `[[sim:edit=src/config.ts|${LONG_LINE}]] [[sim:edit=docs/notes.md|a note]]`,
};

/**
 * Adds, in alpha, a thread whose second run made `seed.edits` (by default two files, one of them
 * with `LONG_LINE`) and whose third run now waits on an approval, so the inbox lists it with a
 * diff to show. Resolves once the simulator has recorded that approval.
 */
export async function seedDiffThread(
  gate: SimGate,
  since: number,
  seed: DiffThreadSeed = EDIT_THREAD,
): Promise<string> {
  const alpha = gate.sim.environment("alpha").model;
  const { threadId } = seed;
  alpha.addThread({
    id: threadId,
    projectId: "p-api",
    title: seed.title,
    state: "completed",
    message: "Set things up.",
    at: since,
  });
  // T3 loses the state before a first run once a second starts (fixtures 133/134), so the edits
  // come in the second run, and the third waits on the approval.
  await dispatch(alpha, threadId, 2, seed.edits);
  await until(() => {
    const runs =
      (alpha.getThread(threadId)?.projection as { runs?: { status?: string }[] } | undefined)?.runs ?? [];
    return runs.length === 2 && runs.every((run) => run.status === "completed");
  });
  alpha.scriptNextRun(threadId, { approval: true });
  await dispatch(alpha, threadId, 3, "Now deploy it.");
  await until(() => {
    const shell = alpha.getThread(threadId)?.shell as { pendingRuntimeRequest?: { id?: string } | null };
    return Boolean(shell?.pendingRuntimeRequest?.id);
  });
  return threadId;
}

type SimModel = ReturnType<SimGate["sim"]["environment"]>["model"];

async function dispatch(model: SimModel, threadId: string, n: number, text: string): Promise<void> {
  await model.callUnary("orchestration.dispatchCommand", {
    commandId: `c-${threadId}-${n}`,
    type: "message.dispatch",
    threadId,
    messageId: `m-${threadId}-${n}`,
    text,
    attachments: [],
    createdBy: "user",
    creationSource: "web",
    dispatchMode: { type: "start_immediately" },
  });
}

/** Waits on the simulator's own records, not on time: polls until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}
