/** A simulated environment, a read config pointing at it, and helpers that drive its runs. */
import { randomUUID } from "node:crypto";
import { loadReadConfig, type ReadConfig } from "@t3-connector/core/config";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "./sim-config.js";

export const PROJECT = "project-events";
export const PROJECT_TITLE = "events";
export const OTHER_PROJECT = "project-other";

export interface SimEvents {
  sim: Simulator;
  env: SimEnvironment;
  simConfig: SimConfig;
  config: ReadConfig;
  close(): Promise<void>;
}

/** One empty environment "alpha" on a manual clock, with two allowed projects. */
export async function startSimEvents(): Promise<SimEvents> {
  const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "manual" });
  const env = sim.environment("alpha");
  env.model.addProject({ id: PROJECT, title: PROJECT_TITLE, workspaceRoot: "/tmp/events" });
  env.model.addProject({ id: OTHER_PROJECT, title: "other", workspaceRoot: "/tmp/other" });
  const simConfig = await writeSimConfig(sim);
  const config = await loadReadConfig({ path: simConfig.configPath });
  return {
    sim,
    env,
    simConfig,
    config,
    async close() {
      await sim.close();
      await simConfig.remove();
    },
  };
}

/** Creates an idle thread. */
export function addThread(env: SimEnvironment, title: string, projectId = PROJECT): string {
  return env.model.addThread({ projectId, title });
}

/** Starts a run on `threadId` following `script`; it moves only when the clock does. */
export async function startRun(
  env: SimEnvironment,
  threadId: string,
  script: Parameters<SimEnvironment["model"]["scriptNextRun"]>[1] = {},
): Promise<void> {
  env.model.scriptNextRun(threadId, script);
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    type: "message.dispatch",
    threadId,
    messageId: randomUUID(),
    text: "Please fix the parser.",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  if (outcome.kind !== "success") throw new Error(`dispatch refused: ${JSON.stringify(outcome)}`);
}

/** The newest run of a thread, as the simulator holds it. */
export function latestRun(env: SimEnvironment, threadId: string): { id: string; status: string } {
  const shell = env.model.getThread(threadId)?.shell as { latestRunId?: string; status?: string } | undefined;
  if (!shell?.latestRunId) throw new Error(`thread ${threadId} has no run`);
  return { id: shell.latestRunId, status: String(shell.status) };
}
