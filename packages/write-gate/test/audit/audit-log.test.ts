import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@t3-connector/core";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterEach, describe, expect, it } from "vitest";
import { scopeFingerprint } from "../../src/approval/index.js";
import { AUDIT_FILE, auditLeaseChanges, openAuditLog } from "../../src/audit/index.js";
import { runCli } from "../../src/cli.js";
import { GateLeaseKeeper } from "../../src/lease/lease-keeper.js";
import { failingAuditFs, failingJournalFs } from "../support/failing-fs.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let world: SimWorld | undefined;
let harness: GateHarness | undefined;
let temp: string | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await world?.close();
  world = undefined;
  if (temp !== undefined) await rm(temp, { recursive: true, force: true });
  temp = undefined;
});

async function auditLines(stateDir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(stateDir, AUDIT_FILE), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

class ManualClock implements Clock {
  wall = Date.parse("2026-12-02T12:00:00.000Z");
  mono = 1_000;
  now = () => this.wall;
  monotonic = () => this.mono;
  advance(ms: number) {
    this.wall += ms;
    this.mono += ms;
  }
}

describe("audit log", () => {
  it("never holds a token, a pairing or enrollment code, the capability or message text", async () => {
    world = await startSimWorld(["alpha"]);
    const alpha = world.env("alpha");
    // Pair first (through the CLI), so the run has used a pairing code and minted a new token.
    const entry = world.config.environments[0];
    if (entry === undefined || entry.transport.kind !== "url") throw new Error("no url environment");
    const configPath = join(world.root, "write.json");
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
    const pairingCode = alpha.createPairingCode({ scopes: OPERATE_SCOPES });
    const out: string[] = [];
    const paired = await runCli(["pair", "--environment", "alpha"], {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: () => undefined },
      stdin: [pairingCode],
      env: { T3_CONNECTOR_WRITE_CONFIG: configPath, T3_CONNECTOR_CONFIG: join(world.root, "no-read.json") },
    });
    expect(paired).toBe(0);
    const pairedToken = (await readFile(entry.tokenFile, "utf8")).trim();

    harness = await startGateHarness({ world });
    const capability = await harness.capability();
    const enrollmentCode = /enrollment code: (\S+)/.exec(harness.logs.join("\n"))?.[1];
    expect(enrollmentCode).toBeDefined();
    const approval = await harness.relay({ op: "request_approval" });
    expect(approval.body).toMatchObject({ active: false, requestId: expect.any(String) });
    const leaseId = await harness.grantLease();
    const text = "SECRET-MESSAGE-TEXT-7f3a9c please run the tests";
    const summary = await harness.relay({ op: "request_approval" });
    expect(summary.body).toMatchObject({ active: true, leaseId }); // never a second request under a lease
    const sent = await harness.relay({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-send-secret",
      action: "thread.send",
      input: {
        threadId: IDLE_THREAD,
        text,
        clientRequestId: "op-send-secret",
        delivery: "start_immediately",
      },
    });
    expect(sent.status).toBe(200);
    expect(alpha.model.receivedCommands.map((command) => JSON.stringify(command.payload)).join()).toContain(
      text,
    );
    await harness.relay({ op: "reconcile", environment: "alpha", operationId: "op-send-secret" });
    harness.gate.lease.closeAll("revoked");
    await harness.close();
    harness = undefined;

    const raw = await readFile(join(world.stateDir, AUDIT_FILE), "utf8");
    for (const secret of [
      pairingCode,
      pairedToken,
      alpha.operateToken,
      capability,
      enrollmentCode ?? "",
      "SECRET-MESSAGE",
    ]) {
      expect(secret.length).toBeGreaterThan(5);
      expect(raw).not.toContain(secret);
    }
    const events = (await auditLines(world.stateDir)).map((line) => line.event);
    expect(events.filter((event) => event === "approval_requested")).toHaveLength(1);
    expect(events).toEqual(
      expect.arrayContaining([
        "gate_started",
        "lease_granted",
        "dispatch",
        "reconciled",
        "lease_revoked",
        "gate_stopped",
      ]),
    );
    const dispatch = (await auditLines(world.stateDir)).find((line) => line.event === "dispatch");
    expect(dispatch).toMatchObject({
      action: "thread.send",
      environmentId: alpha.environmentId,
      operationId: "op-send-secret",
      state: "completed",
      code: null,
    });
    expect((await stat(join(world.stateDir, AUDIT_FILE))).mode & 0o777).toBe(0o600);
  });

  it("records approval requests, and lease grants, expiries, ends and revokes from the keeper, each naming its lease", async () => {
    temp = await mkdtemp(join(tmpdir(), "t3c-audit-"));
    world = await startSimWorld(["alpha"]);
    const clock = new ManualClock();
    const keeper = new GateLeaseKeeper({ clock });
    const audit = await openAuditLog({ stateDir: temp, clock });
    const stop = auditLeaseChanges(keeper, audit);
    const scope = await leaseScopeFor(world);
    const first = keeper.grant({ scope, scopeFingerprint: scopeFingerprint(scope), credentialId: "c1" });
    clock.advance(61 * 60_000);
    expect(keeper.list()).toEqual([]);
    const second = keeper.grant({ scope, scopeFingerprint: scopeFingerprint(scope), credentialId: "c1" });
    const third = keeper.grant({ scope, scopeFingerprint: scopeFingerprint(scope), credentialId: "c1" });
    // Several leases at once (ADR 0028): each change names its own lease.
    keeper.end(second.leaseId, "ended");
    keeper.closeAll("revoked");
    stop();
    await audit.close();
    const lines = await auditLines(temp);
    expect(lines.map((line) => [line.event, line.leaseId, line.reason])).toEqual([
      ["lease_granted", first.leaseId, undefined],
      ["lease_expired", first.leaseId, "expired"],
      ["lease_granted", second.leaseId, undefined],
      ["lease_granted", third.leaseId, undefined],
      ["lease_closed", second.leaseId, "ended"],
      ["lease_revoked", third.leaseId, "revoked"],
    ]);
    expect(lines[0]).toMatchObject({
      scopeFingerprint: scopeFingerprint(scope),
      environments: [world.env("alpha").environmentId],
    });
  });

  it("closes every lease when the audit log cannot be written, and the next write is refused", async () => {
    world = await startSimWorld(["alpha"]);
    const auditFs = failingAuditFs();
    harness = await startGateHarness({ world, auditFs });
    const leaseId = await harness.grantLease();
    await harness.gate.audit.settled(); // lease_granted is on disk before the disk starts failing
    auditFs.failing = true;
    const pin = (operationId: string) => pinIdleThread(leaseId, operationId);
    const first = await harness.relay(pin("op-audit-1"));
    expect(first.status).toBe(200); // it reached T3 and the journal says so; only the audit failed
    expect(harness.gate.lease.list()).toEqual([]);
    const count = world.env("alpha").model.receivedCommands.length;
    const second = await harness.relay(pin("op-audit-2"));
    expect((second.body as { error: string }).error).toBe("lease_closed");
    expect(world.env("alpha").model.receivedCommands.length).toBe(count);
  });

  it("closes every lease when the journal cannot be written, and nothing is sent", async () => {
    world = await startSimWorld(["alpha"]);
    const journalFs = failingJournalFs();
    harness = await startGateHarness({ world, journalFs });
    const leaseId = await harness.grantLease();
    await harness.gate.audit.settled();
    journalFs.failing = true;
    const answer = await harness.relay({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-journal-1",
      action: "thread.pin",
      input: { threadId: IDLE_THREAD },
    });
    expect((answer.body as { error: string }).error).toBe("journal_unavailable");
    expect(harness.gate.lease.list()).toEqual([]);
    expect(world.env("alpha").model.receivedCommands).toEqual([]);
    const closed = (await auditLines(world.stateDir)).find((line) => line.event === "lease_closed");
    expect(closed).toMatchObject({ reason: "journal_failed" });
  });
});
