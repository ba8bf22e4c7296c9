import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import type { CliIo } from "@t3-connector/core/cli-support";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, USAGE_EXIT_CODE } from "../../src/cli.js";
import { reconcileCommand } from "../../src/process/reconcile.js";
import { generateCapability, writeCapabilityFile } from "../../src/relay/capability.js";

let world: SimWorld | undefined;
let h: GateHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await world?.close();
  world = undefined;
});

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
  };
  return { out, err, io: cli };
}

/** The CLI's write config for the world (only the named environments), as a file. */
async function writeConfig(w: SimWorld, aliases: readonly string[] = ["alpha", "beta"]) {
  const environments: Record<string, unknown> = {};
  for (const entry of w.config.environments) {
    if (!aliases.includes(entry.alias) || entry.transport.kind !== "url") continue;
    environments[entry.alias] = {
      environmentId: entry.environmentId,
      url: entry.transport.url,
      tokenFile: entry.tokenFile,
    };
  }
  const path = join(w.root, `write-${aliases.join("-")}.json`);
  await writeFile(path, JSON.stringify({ port: w.config.port, stateDir: w.stateDir, environments }));
  return { T3_CONNECTOR_WRITE_CONFIG: path };
}

/** The capability file a gate leaves, without any gate behind it. */
async function leaveCapability(w: SimWorld): Promise<void> {
  await mkdir(w.stateDir, { recursive: true, mode: 0o700 });
  await writeCapabilityFile(w.stateDir, generateCapability());
}

/** A pin whose socket is lost right after the send: the journal holds it `uncertain`. */
async function leaveUncertain(gate: GateHarness, operationId: string): Promise<void> {
  const alpha = gate.world.env("alpha");
  alpha.faults.set({ dropSocketAfterDispatch: true });
  const lost = await gate.relay({
    op: "dispatch",
    leaseId: await gate.grantLease(),
    environment: "alpha",
    operationId,
    action: "thread.pin",
    input: { threadId: IDLE_THREAD },
  });
  alpha.faults.set({ dropSocketAfterDispatch: undefined });
  expect(lost.body).toMatchObject({ error: "reconciliation_required", details: { state: "uncertain" } });
}

describe("t3-connector-write reconcile", () => {
  it("settles an uncertain write through the running gate's relay and prints a table", async () => {
    world = await startSimWorld();
    h = await startGateHarness({ world });
    await leaveUncertain(h, "op-cli-through-gate");
    const commands = world.commandCount();
    const env = await writeConfig(world);

    const run = io(env);
    const exit = await runCli(["reconcile", "--all-uncertain"], run.io);
    expect(run.err.join("")).toBe("");
    expect(exit).toBe(0);
    const [header, row, ...rest] = run.out.join("").trimEnd().split("\n");
    expect(header).toMatch(/^ENVIRONMENT\s+OPERATION\s+ACTION\s+STATE\s+SETTLED\s+HOW$/);
    expect(row).toContain("op-cli-through-gate");
    expect(row).toMatch(/thread\.pin\s+completed\s+yes\s+found \(command_event_in_thread\)/);
    expect(rest).toEqual([]);
    expect(world.commandCount()).toBe(commands);
    // The gate itself settled it: its own reconcile now reports the settled record.
    const after = await h.relay({
      op: "reconcile",
      environment: "alpha",
      operationId: "op-cli-through-gate",
    });
    expect(after.body).toMatchObject({ state: "completed", settled: false });

    const again = io(env);
    expect(await runCli(["reconcile", "--all-uncertain"], again.io)).toBe(0);
    expect(again.out.join("")).toBe("No uncertain writes.\n");
  });

  it("takes the journal lock itself when no gate runs, and answers JSON with --json", async () => {
    world = await startSimWorld();
    h = await startGateHarness({ world });
    await leaveUncertain(h, "op-cli-no-gate");
    await h.close();
    h = undefined;
    const commands = world.commandCount();

    const run = io(await writeConfig(world));
    const code = await runCli(
      ["reconcile", "--operation", "op-cli-no-gate", "--environment", "alpha", "--json"],
      run.io,
    );
    expect(run.err.join("")).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(run.out.join(""));
    expect(report).toMatchObject({
      via: "journal",
      results: [
        {
          operationId: "op-cli-no-gate",
          environmentId: world.env("alpha").environmentId,
          action: "thread.pin",
          state: "completed",
          settled: true,
          found: true,
        },
      ],
    });
    expect(world.commandCount()).toBe(commands);

    // Reopened by a new gate: the settled record is replayed, never resent.
    h = await startGateHarness({ world });
    const replay = await h.relay({
      op: "dispatch",
      leaseId: await h.grantLease(),
      environment: "alpha",
      operationId: "op-cli-no-gate",
      action: "thread.pin",
      input: { threadId: IDLE_THREAD },
    });
    expect(replay.body).toMatchObject({ state: "completed", replayed: true });
    expect(world.commandCount()).toBe(commands);
  });

  it("exits 1 when a write stays uncertain (its environment is not configured here)", async () => {
    world = await startSimWorld();
    h = await startGateHarness({ world });
    await leaveUncertain(h, "op-cli-stays");
    await h.close();
    h = undefined;

    const run = io(await writeConfig(world, ["beta"]));
    expect(await runCli(["reconcile", "--all-uncertain"], run.io)).toBe(1);
    expect(run.out.join("")).toMatch(
      /op-cli-stays\s+thread\.pin\s+uncertain\s+no\s+environment_not_configured/,
    );

    const unknown = io(await writeConfig(world));
    expect(await runCli(["reconcile", "--operation", "op-never-written"], unknown.io)).toBe(1);
    expect(unknown.err.join("")).toContain("no uncertain write has operationId op-never-written");
  });

  it("fails with a gate_unavailable timeout when the gate accepts the connection and never answers", async () => {
    world = await startSimWorld();
    await leaveCapability(world);
    const held: Socket[] = [];
    const hung = createServer((socket) => held.push(socket));
    const connected = new Promise<void>((resolve) => {
      hung.once("connection", () => resolve());
    });
    await new Promise<void>((resolve) => hung.listen(world?.config.port, "127.0.0.1", resolve));
    try {
      const run = io(await writeConfig(world));
      const failure = reconcileCommand(run.io, { allUncertain: true, json: true, relayTimeoutMs: 300 });
      await connected;
      await expect(failure).rejects.toMatchObject({
        code: "gate_unavailable",
        details: { reason: "timeout" },
        message: expect.stringContaining("did not answer within 300 ms"),
      });
      expect(run.out.join("")).toBe("");
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
  });

  it("opens the journal itself when a capability file is left but nothing listens on the port", async () => {
    world = await startSimWorld();
    await leaveCapability(world);
    const run = io(await writeConfig(world));
    const exit = await runCli(["reconcile", "--all-uncertain", "--json"], run.io);
    expect(run.err.join("")).toBe("");
    expect(exit).toBe(0);
    expect(JSON.parse(run.out.join(""))).toEqual({ via: "journal", results: [] });
  });

  it("refuses incomplete or contradictory arguments with the usage exit code", async () => {
    for (const argv of [
      ["reconcile"],
      ["reconcile", "--json"],
      ["reconcile", "--operation"],
      ["reconcile", "--operation", "a", "--all-uncertain"],
      ["reconcile", "--all-uncertain", "--environment", "a", "--environment", "b"],
      ["reconcile", "--all-uncertain", "--force"],
    ]) {
      const run = io({});
      expect(await runCli(argv, run.io)).toBe(USAGE_EXIT_CODE);
      expect(run.out).toEqual([]);
    }
  });
});
