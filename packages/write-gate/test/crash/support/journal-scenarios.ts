/**
 * The journal crash tests' scenarios: one simulator world per file, and per test a state directory,
 * write.json and gate processes of its own, since each test damages its own journal.
 */
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, expect } from "vitest";
import { runCli } from "../../../src/cli.js";
import { GateProcesses, titleWrite, writeGateConfig } from "./gate-process.js";

export interface Scenario {
  /** Counts the file's scenarios, so a test can name its own backup folder. */
  number: number;
  stateDir: string;
  configPath: string;
  gates: GateProcesses;
}

export interface JournalScenarios {
  readonly world: SimWorld;
  newScenario(): Promise<Scenario>;
}

/**
 * Starts the world before the file's tests and stops it and every gate after them; `prefix` names
 * each scenario's state directory and write.json below the world's root.
 */
export function useJournalScenarios(prefix: { stateDir: string; config: string }): JournalScenarios {
  let world: SimWorld | undefined;
  let count = 0;
  const running: GateProcesses[] = [];

  beforeAll(async () => {
    world = await startSimWorld(["alpha"]);
  }, 180_000);

  afterAll(async () => {
    for (const gates of running) gates.killAll();
    await world?.close();
  });

  const started = (): SimWorld => {
    if (world === undefined) throw new Error("the world starts in beforeAll");
    return world;
  };

  return {
    get world() {
      return started();
    },
    async newScenario() {
      const root = started().root;
      count += 1;
      const stateDir = join(root, `${prefix.stateDir}-${count}`);
      await mkdir(stateDir, { mode: 0o700 });
      const configPath = join(root, `${prefix.config}-${count}.json`);
      await writeGateConfig(started(), configPath, stateDir);
      const gates = new GateProcesses(started(), configPath);
      running.push(gates);
      return { number: count, stateDir, configPath, gates };
    },
  };
}

/** Writes through a real gate and its relay, each sent once; then a clean stop. */
export async function sendThroughTheGate(scene: Scenario, operationIds: string[]): Promise<void> {
  const gate = await scene.gates.start();
  for (const operationId of operationIds) {
    const answer = await scene.gates.relay(gate.port, titleWrite(gate.leaseId, operationId), scene.stateDir);
    expect(answer.body).toMatchObject({ state: "completed", replayed: false });
    expect(scene.gates.commandsFor(operationId)).toBe(1);
  }
  gate.process.kill("SIGTERM");
  expect(await gate.exited).toBe(0);
}

/** `t3-connector-write <args>` in this process, the way a person runs it. */
export async function runWriteCli(configPath: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: { T3_CONNECTOR_WRITE_CONFIG: configPath },
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** The built CLI in a child process, as a person runs it; a non-zero exit is an answer, not a throw. */
export async function spawnWriteCli(configPath: string, args: string[]) {
  return promisify(execFile)(process.execPath, [builtBin("t3-connector-write"), ...args], {
    env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: configPath },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
}
