/**
 * A simulator with two environments (each: a leased project with idle and running threads, and a
 * project outside every test lease), operate tokens in private token files, and a write config
 * pointing at them with a private state dir and a free loopback port.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type WriteConfig, writeTokenFile } from "@t3-connector/core/config";
import {
  type SimEnvironment,
  type Simulator,
  type SimulatorEnvironmentOptions,
  startSimulator,
} from "@t3-connector/t3-sim";
import { SAMPLE_IDS } from "@t3-connector/write-engine/actions";
import { freePort } from "./free-port.js";

export const LEASED_PROJECT = SAMPLE_IDS.projectId;
export const OTHER_PROJECT = "project-outside-lease";
export const IDLE_THREAD = SAMPLE_IDS.threadId;
export const RUNNING_THREAD = SAMPLE_IDS.otherThreadId;
export const OUTSIDE_THREAD = "thread-outside-lease";

export interface SimWorld {
  sim: Simulator;
  root: string;
  stateDir: string;
  config: WriteConfig;
  env(alias: string): SimEnvironment;
  /** Every command any environment accepted. */
  commandCount(): number;
  close(): Promise<void>;
}

/** Extra simulator options per alias (e.g. `{ beta: { compat: "0.0.31" } }` for an older server). */
export type SimWorldProfiles = Record<string, Omit<SimulatorEnvironmentOptions, "alias" | "seed">>;

export async function startSimWorld(
  aliases: readonly string[] = ["alpha", "beta"],
  profiles: SimWorldProfiles = {},
  options: { clock?: "real" | "manual" } = {},
): Promise<SimWorld> {
  const sim = await startSimulator({
    environments: aliases.map((alias) => ({ alias, seed: "empty" as const, ...profiles[alias] })),
    clock: options.clock ?? "real",
    strictCommands: true,
  });
  for (const env of sim.environments) {
    env.model.addProject({ id: LEASED_PROJECT, title: "leased", workspaceRoot: SAMPLE_IDS.workspaceRoot });
    env.model.addProject({ id: OTHER_PROJECT, title: "outside", workspaceRoot: "/work/outside" });
    env.model.addThread({ id: IDLE_THREAD, projectId: LEASED_PROJECT, state: "completed" });
    env.model.addThread({ id: RUNNING_THREAD, projectId: LEASED_PROJECT, state: "running" });
    env.model.addThread({ id: OUTSIDE_THREAD, projectId: OTHER_PROJECT, state: "completed" });
  }
  return worldOf(sim, "t3c-write-gate-", aliases[0] ?? "");
}

/**
 * A world around a simulator already seeded: an operate token file per environment (private
 * files), and a write config pointing at them with a private state dir and a free loopback port.
 */
export async function worldOf(
  sim: Simulator,
  prefix: string,
  defaultAlias: string,
  /** Every environment's allowed project folders (`projectRoots`, ADR 0074); default none. */
  projectRoots?: readonly string[],
): Promise<SimWorld> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const stateDir = join(root, "state");
  const environments: WriteConfig["environments"] = [];
  for (const env of sim.environments) {
    const tokenFile = join(root, "tokens", `${env.alias}-write`);
    await writeTokenFile(tokenFile, env.operateToken);
    environments.push({
      alias: env.alias,
      environmentId: env.environmentId,
      transport: { kind: "url", url: env.url },
      tokenFile,
      ...(projectRoots === undefined ? {} : { projectRoots }),
    });
  }
  const config: WriteConfig = {
    path: join(root, "write.json"),
    port: await freePort(),
    stateDir,
    default: defaultAlias,
    environments,
  };
  return {
    sim,
    root,
    stateDir,
    config,
    env: (alias) => sim.environment(alias),
    commandCount: () => sim.environments.reduce((sum, env) => sum + env.model.receivedCommands.length, 0),
    async close() {
      await sim.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
