import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { EXIT_CODES, usageErrorText } from "@t3-connector/core/cli-support";
import { parseArgs, type ServeArgs, serveEnvironments, USAGE } from "./cli-args.js";
import { type ConfigEnvironment, writeConfigFiles } from "./cli-config-files.js";
import { profileFromReport } from "./profile-from-report.js";
import { type Simulator, startSimulator } from "./simulator.js";

/** Where the CLI writes; stdout carries only the one JSON line, logs go to stderr. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * Starts the environments, writes the config files if asked, then prints the ready line.
 * Returns the running simulator (the caller decides when to close it).
 */
export async function serve(args: ServeArgs, io: CliIo = processIo): Promise<Simulator> {
  const profile =
    args.profileReport === undefined
      ? {}
      : profileFromReport(JSON.parse(await readFile(args.profileReport, "utf8")) as unknown);
  const sim = await startSimulator({ environments: serveEnvironments(args, profile) });
  try {
    if (args.configOut !== undefined) {
      await writeConfigFiles(args.configOut, sim.environments.map(toConfigEnvironment));
      io.stderr(`t3-sim: wrote config.json, write.json and tokens/ in ${args.configOut}\n`);
    }
  } catch (error) {
    await sim.close();
    throw error;
  }
  for (const env of sim.environments)
    io.stderr(
      `t3-sim: ${env.alias} (${env.environmentId}, T3 ${env.serverVersion}, ${env.profile}) on ${env.url}\n`,
    );
  const ready = {
    environments: sim.environments.map((env) => ({
      alias: env.alias,
      environmentId: env.environmentId,
      url: env.url,
      readToken: env.readToken,
      operateToken: env.operateToken,
      profile: env.profile,
      serverVersion: env.serverVersion,
      webBuild: env.webBuild,
      // Single use, 5 minutes: what `t3-connector environments add` reads on stdin.
      pairingCode: env.createPairingCode(),
    })),
  };
  io.stdout(`${JSON.stringify(ready)}\n`);
  return sim;
}

function toConfigEnvironment(env: Simulator["environments"][number]): ConfigEnvironment {
  return {
    alias: env.alias,
    environmentId: env.environmentId,
    url: env.url,
    readToken: env.readToken,
    operateToken: env.operateToken,
    projectIds: seededProjectIds(env.model.httpProjects()),
  };
}

/** Every live project the model lists (read config needs a non-empty `allowedProjects`). */
function seededProjectIds(
  outcome: ReturnType<Simulator["environments"][number]["model"]["httpProjects"]>,
): string[] {
  if (outcome.kind !== "ok") return [];
  const projects = (outcome.body as { projects?: unknown }).projects;
  if (!Array.isArray(projects)) return [];
  return projects
    .filter((p): p is { id: string; deletedAt?: unknown } => typeof (p as { id?: unknown })?.id === "string")
    .filter((p) => p.deletedAt === undefined || p.deletedAt === null)
    .map((p) => p.id);
}

/** The `t3-sim` entry point: exit code 0 on help and on a clean SIGINT/SIGTERM stop, 64 on a usage problem. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const parsed = parseArgs(argv);
  if (parsed.command === "help") {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.command === "version") {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  if (parsed.command === "error") {
    // The house style (ADR 0030): the problem and where the help is, never the whole usage.
    io.stderr(usageErrorText("t3-sim", parsed.message, parsed.path));
    return EXIT_CODES.usage;
  }
  // Listen before starting: a signal right after the ready line must not kill the process.
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  let sim: Simulator;
  try {
    sim = await serve(parsed, io);
  } catch (error) {
    io.stderr(`t3-sim: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  io.stderr(`t3-sim: ${await signal}, stopping\n`);
  await sim.close();
  return 0;
}

/** From package.json: `src/` and `dist/` both sit one level below the package root. */
function packageVersion(): string {
  const raw = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: unknown;
  };
  if (typeof raw.version !== "string") throw new Error("t3-sim package.json has no version");
  return raw.version;
}
