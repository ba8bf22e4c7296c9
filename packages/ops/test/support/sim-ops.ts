import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeTokenFile } from "@t3-connector/core/config";
import {
  type SimEnvironment,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from "@t3-connector/t3-sim";
import { parseOpsConfig } from "../../src/config.js";
import { Ops } from "../../src/ops.js";

export interface SimOps {
  sim: Simulator;
  ops: Ops;
  /** The temporary directory holding ops.json and the token files. */
  dir: string;
  /** Path of the ops.json written for the simulator (for the CLI). */
  configPath: string;
  env(alias: string): SimEnvironment;
  /** The first project of an environment with this title. */
  projectId(alias: string, title: string): string;
  close(): Promise<void>;
}

const DEFAULT_SIM: SimulatorOptions = { environments: [{ alias: "alpha" }, { alias: "beta" }] };

/** Top-level ops.json keys besides the environments (e.g. `maxRuntimeMode`). */
export interface SimOpsConfig {
  readonly maxRuntimeMode?: string;
  /** Every environment's allowed project folders (`projectRoots`, ADR 0074). */
  readonly projectRoots?: readonly string[];
}

/**
 * The simulator (two environments unless told), an ops.json with real operate token files
 * (0600 in a 0700 directory) pointing at it, and an Ops over that config.
 */
export async function startSimOps(
  options: SimulatorOptions = DEFAULT_SIM,
  config: SimOpsConfig = {},
): Promise<SimOps> {
  const sim = await startSimulator(options);
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3-ops-test-"));
  const environments: Record<string, unknown> = {};
  for (const env of sim.environments) {
    const tokenFile = path.join(dir, "tokens", `${env.alias}.operate.token`);
    await writeTokenFile(tokenFile, env.operateToken);
    environments[env.alias] = {
      environmentId: env.environmentId,
      url: env.url,
      tokenFile,
      aliases: [`${env.alias}-box`],
      ...(config.projectRoots === undefined ? {} : { projectRoots: config.projectRoots }),
    };
  }
  const { projectRoots: _perEnvironment, ...topLevel } = config;
  const document = { ...topLevel, environments };
  const configPath = path.join(dir, "ops.json");
  await writeFile(configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  const ops = new Ops({ config: parseOpsConfig(document, { path: configPath }) });
  return {
    sim,
    ops,
    dir,
    configPath,
    env: (alias) => sim.environment(alias),
    projectId(alias, title) {
      const answer = sim.environment(alias).model.httpProjects();
      const projects =
        answer.kind === "ok" ? (answer.body as { projects: { id: string; title: string }[] }).projects : [];
      const found = projects.find((project) => project.title === title);
      if (found === undefined) throw new Error(`no project ${title} in ${alias}`);
      return found.id;
    },
    async close() {
      await ops.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
