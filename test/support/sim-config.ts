import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { CliIo } from "@t3-connector/core/cli-support";
import { writeTokenFile } from "@t3-connector/core/config";
import type { SimEnvironment, Simulator } from "@t3-connector/t3-sim";

export interface SimConfigOptions {
  /** Per alias: the token the config points at (default: the environment's read token). */
  token?: Record<string, string>;
  /** Per alias: allowedProjects (default: every live project of the environment). */
  allowedProjects?: Record<string, string[]>;
  /** Per alias: the environmentId written in the config (default: the real one). */
  environmentId?: Record<string, string>;
  /** Aliases to leave out of the config. */
  omit?: string[];
  /** Per alias: the url written in the config (default: the environment's own), e.g. a proxy. */
  url?: Record<string, string>;
}

export interface SimConfig {
  dir: string;
  configPath: string;
  tokenFile(alias: string): string;
  remove(): Promise<void>;
}

/** Every live project id of a simulated environment. */
export function liveProjectIds(env: SimEnvironment): string[] {
  const outcome = env.model.httpProjects();
  if (outcome.kind !== "ok") return [];
  const projects = (outcome.body as { projects?: Array<{ id: string; deletedAt?: string | null }> }).projects;
  return (projects ?? []).filter((project) => !project.deletedAt).map((project) => project.id);
}

/**
 * A real read config file (and token files, mode 600 in a 700 directory) pointing at the
 * simulator's environments, as `t3-connector` finds it through T3_CONNECTOR_CONFIG.
 */
export async function writeSimConfig(sim: Simulator, options: SimConfigOptions = {}): Promise<SimConfig> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-cli-"));
  const tokenFile = (alias: string) => path.join(dir, "tokens", `${alias}.read.token`);
  const environments: Record<string, unknown> = {};
  for (const env of sim.environments) {
    if (options.omit?.includes(env.alias)) continue;
    await writeTokenFile(tokenFile(env.alias), options.token?.[env.alias] ?? env.readToken);
    const projects = options.allowedProjects?.[env.alias] ?? liveProjectIds(env);
    environments[env.alias] = {
      environmentId: options.environmentId?.[env.alias] ?? env.environmentId,
      url: options.url?.[env.alias] ?? env.url,
      tokenFile: tokenFile(env.alias),
      allowedProjects: projects.length > 0 ? projects : ["none"],
    };
  }
  const configPath = path.join(dir, "config.json");
  const first = Object.keys(environments)[0];
  await writeFile(configPath, `${JSON.stringify({ default: first, environments }, null, 2)}\n`, {
    mode: 0o600,
  });
  return { dir, configPath, tokenFile, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Captures what a CLI command writes. */
export function captureIo(env: Record<string, string | undefined>, stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
  };
  if (stdin !== undefined) io.stdin = [stdin];
  return {
    io,
    stdout: () => out.join(""),
    stderr: () => err.join(""),
    json: () => JSON.parse(out.join("")) as Record<string, unknown>,
  };
}
