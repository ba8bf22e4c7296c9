/**
 * Nothing is resent without a lease that covers it (ADR 0042), attacked as a local process holding
 * the relay capability and as a second client would: an uncertain pin that never reached T3 (the
 * gate stopped between marking it uncertain and sending it) is reconciled with no leaseId, under
 * the closed lease after Revoke all, under an open lease of another environment, and by the
 * `t3-connector-write reconcile` command (with and without --resend) while the gate runs. Every
 * one only reads: the simulator counts no command. The client's own open lease that covers the
 * write, and only that, sends it again, once.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CliIo } from "@t3-connector/core/cli-support";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { startSimWorld } from "@t3-connector/test-support/sim-world";
import type { Journal } from "@t3-connector/write-engine/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let h: GateHarness;
/** Armed by a test: the next `markUncertain` is made durable, then the gate "stops" before the send. */
let stopAfterUncertain = false;

function stoppingJournal(journal: Journal): Journal {
  return new Proxy(journal, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (property !== "markUncertain") return method;
      return async (...args: unknown[]) => {
        const result = await method(...args);
        if (stopAfterUncertain) {
          stopAfterUncertain = false;
          throw new Error("the gate stopped before the send");
        }
        return result;
      };
    },
  });
}

beforeAll(async () => {
  h = await startGateHarness({ journalHook: stoppingJournal });
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const body = (answer: { body: unknown }) => answer.body as Body;

/** An uncertain pin of alpha's idle thread that never reached T3; answers the lease it was made under. */
async function uncertainPin(operationId: string): Promise<string> {
  const leaseId = await h.grantLease();
  stopAfterUncertain = true;
  const before = h.world.commandCount();
  const answer = await h.relay(pinIdleThread(leaseId, operationId));
  expect(answer.status).not.toBe(200);
  expect(h.world.commandCount()).toBe(before);
  const listed = body(await h.relay({ op: "list_uncertain" })).records as Body[];
  expect(listed.map((record) => record.operationId)).toContain(operationId);
  return leaseId;
}

function cliIo(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      env: { T3_CONNECTOR_WRITE_CONFIG: configPath },
    },
  };
}

let configPath = "";

async function writeCliConfig(): Promise<void> {
  const environments: Record<string, unknown> = {};
  for (const entry of h.world.config.environments) {
    if (entry.transport.kind !== "url") continue;
    environments[entry.alias] = {
      environmentId: entry.environmentId,
      url: entry.transport.url,
      tokenFile: entry.tokenFile,
    };
  }
  configPath = join(h.world.root, "write-reconcile.json");
  await writeFile(
    configPath,
    JSON.stringify({ port: h.gate.port, stateDir: h.world.stateDir, environments }),
  );
}

describe("a reconcile sends nothing without a lease that covers the write", () => {
  it("after Revoke all, no relay reconcile (with or without the old leaseId) and no CLI reconcile reaches T3", async () => {
    const leaseId = await uncertainPin("op-uncertain-revoked");
    h.gate.lease.closeAll("revoked");
    const before = h.world.commandCount();

    const noLease = body(
      await h.relay({ op: "reconcile", environment: "alpha", operationId: "op-uncertain-revoked" }),
    );
    expect(noLease).toMatchObject({ state: "uncertain", settled: false, resend: { sent: false } });
    expect((noLease.observation as Body).reason).toContain("no open lease of the caller covers a resend");

    const closed = body(
      await h.relay({ op: "reconcile", leaseId, environment: "alpha", operationId: "op-uncertain-revoked" }),
    );
    expect(closed).toMatchObject({ state: "uncertain", resend: { sent: false } });

    await writeCliConfig();
    const plain = cliIo();
    expect(await runCli(["reconcile", "--all-uncertain"], plain.io)).toBe(1);
    expect(plain.out.join("")).toContain("op-uncertain-revoked");
    const resend = cliIo();
    expect(await runCli(["reconcile", "--all-uncertain", "--resend"], resend.io)).toBe(67);
    expect(resend.err.join("")).toContain("resend_not_allowed");
    expect(h.world.commandCount()).toBe(before);
  });

  it("refuses to resend another client's write under a lease of another environment: it reads only", async () => {
    await uncertainPin("op-uncertain-elsewhere");
    const betaOnly = await h.grantLease({ environments: ["beta"] });
    const before = h.world.commandCount();
    const answer = body(
      await h.relay({
        op: "reconcile",
        leaseId: betaOnly,
        environment: "alpha",
        operationId: "op-uncertain-elsewhere",
      }),
    );
    expect(answer).toMatchObject({ state: "uncertain", resend: { sent: false } });
    expect((answer.observation as Body).reason).toContain("environment_not_in_lease");
    expect(h.world.commandCount()).toBe(before);
  });

  it("resends once under the caller's own open lease that covers it, and never again", async () => {
    await uncertainPin("op-uncertain-covered");
    const leaseId = await h.grantLease();
    const before = h.world.commandCount();
    const reconcile = () =>
      h.relay({ op: "reconcile", leaseId, environment: "alpha", operationId: "op-uncertain-covered" });
    expect(body(await reconcile())).toMatchObject({
      state: "completed",
      settled: true,
      resend: { sent: true, answer: "receipt" },
    });
    expect(body(await reconcile())).toMatchObject({ state: "completed", settled: false, resend: null });
    expect(h.world.commandCount()).toBe(before + 1);
  });

  it("the terminal command on a stopped gate reads only, and resends only with --resend, after printing what", async () => {
    const world = await startSimWorld();
    const own = await startGateHarness({ world, journalHook: stoppingJournal });
    try {
      const leaseId = await own.grantLease();
      stopAfterUncertain = true;
      await own.relay(pinIdleThread(leaseId, "op-uncertain-terminal"));
      await own.gate.close();
      const environments: Record<string, unknown> = {};
      for (const entry of world.config.environments) {
        if (entry.transport.kind !== "url") continue;
        environments[entry.alias] = {
          environmentId: entry.environmentId,
          url: entry.transport.url,
          tokenFile: entry.tokenFile,
        };
      }
      configPath = join(world.root, "write-stopped.json");
      await writeFile(
        configPath,
        JSON.stringify({ port: world.config.port, stateDir: world.stateDir, environments }),
      );
      const before = world.commandCount();
      const read = cliIo();
      expect(await runCli(["reconcile", "--operation", "op-uncertain-terminal"], read.io)).toBe(1);
      expect(read.out.join("")).toContain("no open lease of the caller covers a resend");
      expect(world.commandCount()).toBe(before);

      const resend = cliIo();
      expect(await runCli(["reconcile", "--operation", "op-uncertain-terminal", "--resend"], resend.io)).toBe(
        0,
      );
      expect(resend.err.join("")).toMatch(
        /reconcile --resend: if T3 shows no effect of op-uncertain-terminal \(thread\.pin on .*\), it sends again: thread\.pin commandId=\S+ threadId=/,
      );
      expect(resend.out.join("")).toContain("resent, T3 answered receipt");
      expect(world.commandCount()).toBe(before + 1);
    } finally {
      await world.close();
    }
  });
});
