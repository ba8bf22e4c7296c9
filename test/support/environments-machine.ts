import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isConnectorError } from "@t3-connector/core";
import type { CliIo } from "@t3-connector/core/cli-support";
import type { EnvironmentsConfigKind, EnvironmentsReport } from "@t3-connector/core/pairing";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";

/**
 * One machine's three config files in a temporary directory, for the one environments command
 * (core's pairing, ADR 0058): each test runs the command over one kind of file and reads back what
 * it printed and wrote. The three paths are always set, so nothing reads the user's own files.
 */
export interface EnvironmentsMachine {
  dir: string;
  env: Record<string, string>;
  /** The file of `kind` in this machine. */
  file(kind: EnvironmentsConfigKind): string;
  /** `tokens/<alias>.<kind's token name>.token` beside the files. */
  tokenFile(kind: EnvironmentsConfigKind, alias: string): string;
  io(stdin?: string): { io: CliIo; stderr: () => string };
  remove(): Promise<void>;
}

const FILES = { read: "config.json", write: "write.json", ops: "ops.json" } as const;

export async function environmentsMachine(): Promise<EnvironmentsMachine> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3-environments-"));
  const env = {
    T3_CONNECTOR_CONFIG: path.join(dir, FILES.read),
    T3_CONNECTOR_WRITE_CONFIG: path.join(dir, FILES.write),
    T3_CONNECTOR_OPS_CONFIG: path.join(dir, FILES.ops),
  };
  return {
    dir,
    env,
    file: (kind) => path.join(dir, FILES[kind.owner]),
    tokenFile: (kind, alias) => path.join(dir, "tokens", `${alias}.${kind.tokenName}.token`),
    io: (stdin) => {
      const err: string[] = [];
      const io: CliIo = {
        stdout: { write: () => true },
        stderr: { write: (text: string) => err.push(text) },
        env,
        ...(stdin === undefined ? {} : { stdin: [stdin] }),
      };
      return { io, stderr: () => err.join("") };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The typed error a command refused with (a test fails when it did not refuse). */
export async function refusal(run: Promise<EnvironmentsReport>): Promise<{ code: string; message: string }> {
  try {
    await run;
  } catch (error) {
    if (isConnectorError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the command did not refuse");
}

export const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

export const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

/** A config file as JSON, to read and edit freely in a test. */
// biome-ignore lint/suspicious/noExplicitAny: a test edits the file's JSON by its known keys
export async function readJson(file: string): Promise<Record<string, any>> {
  return JSON.parse(await readFile(file, "utf8"));
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

/** The keys of an answer, sorted: the shape every CLI prints. */
export function keysOf(value: unknown): string[] {
  return Object.keys(value as Record<string, unknown>).sort();
}

/** Two simulated machines with projects and threads: the one a file names, and another one. */
export function startAlphaAndBeta(): Promise<Simulator> {
  return startSimulator({
    environments: ["alpha", "beta"].map((alias) => ({ alias, seed: "demo" as const })),
  });
}

/** A port nothing listens on: where a machine used to be. */
export const GONE_URL = "http://127.0.0.1:9";

/** A read config whose one environment keeps its read token in `tokenFile`. */
export function readConfigWithTokenFile(tokenFile: string) {
  const desk = { environmentId: "env-desk", url: "https://desk.example", tokenFile, allowedProjects: ["p"] };
  return { environments: { desk } };
}
