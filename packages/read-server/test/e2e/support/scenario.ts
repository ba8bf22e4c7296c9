import { randomUUID } from "node:crypto";
import type { SimEnvironment, Simulator } from "@t3-connector/t3-sim";

/** Starts a run on `threadId` the way a T3 user would: a message dispatched to start at once. */
export async function startRun(env: SimEnvironment, threadId: string, text: string): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    type: "message.dispatch",
    threadId,
    messageId: randomUUID(),
    text,
    attachments: [],
    createdBy: "user",
    creationSource: "web",
    dispatchMode: { type: "start_immediately" },
  });
  if (outcome.kind !== "success")
    throw new Error(`the simulator refused the message: ${JSON.stringify(outcome)}`);
}

/** The id of the seeded thread titled `title` in `env`. */
export function threadIdByTitle(env: SimEnvironment, title: string): string {
  const outcome = env.model.httpShell();
  const threads =
    outcome.kind === "ok" ? (outcome.body as { threads: Array<{ id: string; title: string }> }).threads : [];
  const found = threads.find((thread) => thread.title === title);
  if (found === undefined) throw new Error(`no thread titled "${title}" in ${env.alias}`);
  return found.id;
}

export function firstProjectId(sim: Simulator, alias: string): string {
  const outcome = sim.environment(alias).model.httpProjects();
  const projects =
    outcome.kind === "ok" ? (outcome.body as { projects: Array<{ id: string }> }).projects : [];
  const first = projects[0];
  if (first === undefined) throw new Error(`${alias} has no project`);
  return first.id;
}
