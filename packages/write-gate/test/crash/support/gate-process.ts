/**
 * The crash tests' real gate: the BUILT gate started as a child process (gate-child.mjs) against
 * the simulator, its relay, and the count of commands the simulator received per operation.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { builtFile } from "@t3-connector/test-support/built-bins";
import { postJson } from "@t3-connector/test-support/gate-http";
import { IDLE_THREAD, type SimWorld } from "@t3-connector/test-support/sim-world";
import { RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import type { CrashPoint } from "../../../src/process/index.js";
import { CAPABILITY_FILE } from "../../../src/relay/index.js";

const CHILD = builtFile("packages/write-gate/test/crash/gate-child.mjs");

export interface GateChild {
  process: ChildProcess;
  port: number;
  leaseId: string;
  exited: Promise<NodeJS.Signals | number | null>;
}

/** A write.json for the world's environment `alpha`, with `stateDir` (default: the world's). */
export async function writeGateConfig(
  world: SimWorld,
  path: string,
  stateDir = world.stateDir,
): Promise<void> {
  const entry = world.config.environments[0];
  if (entry === undefined || entry.transport.kind !== "url") throw new Error("no url environment");
  await writeFile(
    path,
    JSON.stringify({
      port: world.config.port,
      stateDir,
      environments: {
        alpha: { environmentId: entry.environmentId, url: entry.transport.url, tokenFile: entry.tokenFile },
      },
    }),
  );
}

export class GateProcesses {
  readonly #children = new Set<ChildProcess>();
  readonly #world: SimWorld;
  readonly #configPath: string;

  constructor(world: SimWorld, configPath: string) {
    this.#world = world;
    this.#configPath = configPath;
  }

  killAll(): void {
    for (const child of this.#children) child.kill("SIGKILL");
  }

  /** Start a gate; resolves once it listens with a lease granted, or rejects with its stderr. */
  async start(crashAt?: CrashPoint, stderr: string[] = []): Promise<GateChild> {
    const env: NodeJS.ProcessEnv = { ...process.env, T3C_TEST_WRITE_CONFIG: this.#configPath };
    delete env.T3C_GATE_CRASH_AT;
    if (crashAt !== undefined) env.T3C_GATE_CRASH_AT = crashAt;
    const child = spawn(process.execPath, [CHILD], { env, stdio: ["ignore", "pipe", "pipe"] });
    this.#children.add(child);
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    const exited = once(child, "exit").then(([code, signal]) => {
      this.#children.delete(child);
      return (signal ?? code) as NodeJS.Signals | number | null;
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const first = await Promise.race([
      once(lines, "line").then(([line]) => String(line)),
      exited.then((how) => {
        throw new Error(`gate exited (${String(how)}) before it was ready: ${stderr.join("")}`);
      }),
    ]);
    const ready = JSON.parse(first) as { port: number; leaseId: string };
    return { process: child, ...ready, exited };
  }

  /** POST /relay with the capability the running gate wrote. */
  async relay(port: number, body: unknown, stateDir = this.#world.stateDir) {
    const capability = await readFile(join(stateDir, CAPABILITY_FILE), "utf8");
    return postJson(port, "/relay", body, { [RELAY_HEADER]: capability });
  }

  /** Commands the simulator accepted for this operation (its title is unique to it). */
  commandsFor(operationId: string): number {
    return this.#world
      .env("alpha")
      .model.receivedCommands.filter((command) =>
        JSON.stringify(command.payload).includes(`renamed by ${operationId}`),
      ).length;
  }
}

/** A rename of the idle thread whose title names the operation. */
export function titleWrite(leaseId: string, operationId: string) {
  return {
    op: "dispatch",
    leaseId,
    environment: "alpha",
    operationId,
    action: "thread.title",
    input: { threadId: IDLE_THREAD, title: `renamed by ${operationId}` },
  };
}
