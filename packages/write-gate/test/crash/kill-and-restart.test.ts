/**
 * kill -9 the built gate at each point of the write path, restart it, retry the same operationId
 * through the relay: T3 saw the command at most once, an acknowledged record survives, and an
 * uncertain one says so (it is never resent). See gate-child.mjs for the test-only parts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CrashPoint } from "../../src/process/index.js";
import { CAPABILITY_FILE, CAPABILITY_HEADER } from "../../src/relay/index.js";
import { buildDist } from "../support/build-dist.js";
import { postJson } from "../support/http.js";
import { IDLE_THREAD, type SimWorld, startSimWorld } from "../support/sim-world.js";

const CHILD = fileURLToPath(new URL("./gate-child.mjs", import.meta.url));

let world: SimWorld;
let configPath: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  await buildDist();
  world = await startSimWorld(["alpha"]);
  configPath = join(world.root, "write.json");
  const entry = world.config.environments[0];
  if (entry === undefined || entry.transport.kind !== "url") throw new Error("no url environment");
  await writeFile(
    configPath,
    JSON.stringify({
      port: world.config.port,
      stateDir: world.stateDir,
      environments: {
        alpha: { environmentId: entry.environmentId, url: entry.transport.url, tokenFile: entry.tokenFile },
      },
    }),
  );
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await world?.close();
});

interface Child {
  process: ChildProcess;
  port: number;
  leaseId: string;
  exited: Promise<NodeJS.Signals | number | null>;
}

async function startChild(crashAt?: CrashPoint): Promise<Child> {
  const env: NodeJS.ProcessEnv = { ...process.env, T3C_TEST_WRITE_CONFIG: configPath };
  delete env.T3C_GATE_CRASH_AT;
  if (crashAt !== undefined) env.T3C_GATE_CRASH_AT = crashAt;
  const child = spawn(process.execPath, [CHILD], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const stderr: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = once(child, "exit").then(([code, signal]) => {
    children.delete(child);
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

async function relay(port: number, body: unknown) {
  const capability = await readFile(join(world.stateDir, CAPABILITY_FILE), "utf8");
  return postJson(port, "/relay", body, { [CAPABILITY_HEADER]: capability });
}

function title(leaseId: string, operationId: string) {
  return {
    op: "dispatch",
    leaseId,
    environment: "alpha",
    operationId,
    action: "thread.title",
    input: { threadId: IDLE_THREAD, title: `renamed by ${operationId}` },
  };
}

/** Commands the simulator accepted for this operation (its title is unique to it). */
function commandsFor(operationId: string): number {
  return world
    .env("alpha")
    .model.receivedCommands.filter((command) =>
      JSON.stringify(command.payload).includes(`renamed by ${operationId}`),
    ).length;
}

async function crashAt(point: CrashPoint, operationId: string): Promise<void> {
  const doomed = await startChild(point);
  const answer = relay(doomed.port, title(doomed.leaseId, operationId)).then(
    () => "answered",
    () => "connection lost",
  );
  expect(await doomed.exited).toBe("SIGKILL");
  expect(await answer).toBe("connection lost");
}

describe("kill -9 the gate during a write, restart, retry the same operationId", () => {
  it("after reserve: the preparing record was unsent; the retry sends it once", async () => {
    await crashAt("after_reserve", "op-crash-reserve");
    expect(commandsFor("op-crash-reserve")).toBe(0);
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-reserve"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: false });
    const again = await relay(gate.port, title(gate.leaseId, "op-crash-reserve"));
    expect(again.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-reserve")).toBe(1);
    gate.process.kill("SIGTERM");
    expect(await gate.exited).toBe(0);
  });

  it("after uncertain: nothing was sent, and the retry says reconciliation_required instead of sending", async () => {
    await crashAt("after_uncertain", "op-crash-uncertain");
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-uncertain"));
    expect(retry.body).toMatchObject({
      error: "reconciliation_required",
      details: { state: "uncertain", replayed: true },
    });
    const reconciled = await relay(gate.port, {
      op: "reconcile",
      environment: "alpha",
      operationId: "op-crash-uncertain",
    });
    expect(reconciled.body).toMatchObject({
      state: "uncertain",
      settled: false,
      observation: { found: false },
    });
    expect(commandsFor("op-crash-uncertain")).toBe(0);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after the send: T3 has it once; the retry never resends and reconciliation finds it", async () => {
    await crashAt("after_send", "op-crash-send");
    expect(commandsFor("op-crash-send")).toBe(1);
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-send"));
    expect(retry.body).toMatchObject({ error: "reconciliation_required", details: { state: "uncertain" } });
    const reconciled = await relay(gate.port, {
      op: "reconcile",
      environment: "alpha",
      operationId: "op-crash-send",
    });
    expect(reconciled.body).toMatchObject({
      state: "completed",
      settled: true,
      observation: { found: true },
    });
    const after = await relay(gate.port, title(gate.leaseId, "op-crash-send"));
    expect(after.body).toMatchObject({ state: "completed", replayed: true });
    expect(commandsFor("op-crash-send")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("after completed: the acknowledged record survives and the retry replays it", async () => {
    await crashAt("after_completed", "op-crash-completed");
    const gate = await startChild();
    const retry = await relay(gate.port, title(gate.leaseId, "op-crash-completed"));
    expect(retry.body).toMatchObject({ state: "completed", replayed: true });
    expect((retry.body as { receipt: unknown }).receipt).toHaveProperty("sequence");
    expect(commandsFor("op-crash-completed")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });
});
