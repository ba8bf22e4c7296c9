/**
 * A damaged journal stops the real gate: each kind of journal file deleted, bytes changed inside a
 * record, a completed record flipped to `preparing` — the built gate refuses to start with
 * `journal_damaged` naming the file, `journal verify` reports the same, and after
 * `journal recover --accept-loss` a retry of a lost operationId through the relay is refused and
 * never reaches the simulator.
 */
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
// The previous version's journal, as core's journal tests use it (one fixture for both).
import { installPreviousFormatJournal } from "@t3-connector/test-support/damaged-journal";
import { openJournal } from "@t3-connector/write-engine/journal";
import { describe, expect, it } from "vitest";
import { CAPABILITY_FILE } from "../../src/relay/index.js";
import { titleWrite } from "./support/gate-process.js";
import {
  runWriteCli,
  sendThroughTheGate,
  spawnWriteCli,
  useJournalScenarios,
} from "./support/journal-scenarios.js";

const scenarios = useJournalScenarios({ stateDir: "state", config: "write" });
const { newScenario } = scenarios;
const cli = runWriteCli;

/** The real `t3-connector-write gate` on a damaged journal: it must exit, not listen. */
const gateRefusal = (configPath: string) => spawnWriteCli(configPath, ["gate"]);

/** Sealed segments (small ones) and an active segment, written by the journal itself. */
async function journalWithSegments(stateDir: string): Promise<string[]> {
  const journal = await openJournal({ stateDir, segmentRecords: 3, recentRecords: 1 });
  const identity = { environmentId: "env-x", destination: "t3://env-x", caller: "local:test" };
  for (let index = 0; index < 12; index += 1) {
    const { record } = await journal.reserve({
      ...identity,
      operationId: `seed-${index}`,
      action: "thread.title",
      input: { index },
    });
    await journal.markUncertain(record.key, { commandId: `c-${index}` });
    await journal.complete(record.key, { sequence: index });
  }
  await journal.close();
  const names = await nodeFs.readdir(join(stateDir, "journal"));
  return names.filter((name) => name.startsWith("segment-")).sort();
}

describe("the gate refuses to start on a damaged journal, and journal verify says the same", () => {
  const kinds: Array<[string, (stateDir: string, segments: string[]) => Promise<string>]> = [
    ["the oldest sealed segment deleted", async (dir, segments) => remove(dir, `journal/${segments[0]}`)],
    ["a middle sealed segment deleted", async (dir, segments) => remove(dir, `journal/${segments[1]}`)],
    ["active.json deleted", async (dir) => remove(dir, "journal/active.json")],
    ["the manifest deleted", async (dir) => remove(dir, "journal/manifest.json")],
    ["the identity marker deleted", async (dir) => remove(dir, "journal-identity.json")],
    [
      "bytes changed inside a sealed record",
      async (dir, segments) => {
        const file = `journal/${segments[1]}`;
        const text = await nodeFs.readFile(join(dir, file), "utf8");
        await nodeFs.writeFile(join(dir, file), text.replace(/"sequence":(\d)/, '"sequence":9$1'));
        return file;
      },
    ],
  ];

  it.each(kinds)("%s", async (_label, damage) => {
    const { stateDir, configPath } = await newScenario();
    const segments = await journalWithSegments(stateDir);
    expect(segments.length).toBeGreaterThanOrEqual(3);
    const file = await damage(stateDir, segments);

    const refused = await gateRefusal(configPath);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("journal_damaged");
    expect(refused.stderr).toContain(file);
    expect(refused.stderr).toContain("journal recover --accept-loss");
    expect(await nodeFs.readdir(stateDir)).not.toContain(CAPABILITY_FILE);

    const verify = await cli(configPath, ["journal", "verify", "--json"]);
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout) as { status: string; findings: Array<{ file: string }> };
    expect(report.status).toBe("damaged");
    expect(report.findings.map((finding) => finding.file)).toEqual([file]);
  });
});

async function remove(stateDir: string, file: string): Promise<string> {
  await nodeFs.rm(join(stateDir, file));
  return file;
}

async function editActive(
  stateDir: string,
  edit: (records: Record<string, Record<string, unknown>>) => void,
) {
  const path = join(stateDir, "journal", "active.json");
  const document = JSON.parse(await nodeFs.readFile(path, "utf8")) as {
    records: Record<string, Record<string, unknown>>;
  };
  edit(document.records);
  await nodeFs.writeFile(path, JSON.stringify(document));
}

function recordOf(records: Record<string, Record<string, unknown>>, operationId: string) {
  const record = Object.values(records).find((candidate) => candidate.operationId === operationId);
  if (record === undefined) throw new Error(`no record for ${operationId}`);
  return record;
}

async function auditLines(stateDir: string): Promise<Array<Record<string, unknown>>> {
  const text = await nodeFs.readFile(join(stateDir, "audit.log"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("after journal recover --accept-loss, a lost operation is refused through the relay, never sent", () => {
  it("a completed record flipped to preparing: refused by name, the intact one replays, a new one is sent once", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-flip-lost", "op-flip-kept"]);
    await editActive(scene.stateDir, (records) => {
      const record = recordOf(records, "op-flip-lost");
      record.state = "preparing";
      record.receipt = null;
    });

    const stderr: string[] = [];
    await expect(scene.gates.start(undefined, stderr)).rejects.toThrow(
      /journal_damaged[\s\S]*journal\/active\.json/,
    );
    const verify = await cli(scene.configPath, ["journal", "verify"]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain("journal/active.json [record_altered]");
    expect(verify.stdout).toContain("op-flip-lost");

    expect((await cli(scene.configPath, ["journal", "recover"])).code).toBe(64);
    const recovered = await cli(scene.configPath, ["journal", "recover", "--accept-loss", "--json"]);
    expect(recovered.code).toBe(0);
    expect(JSON.parse(recovered.stdout)).toMatchObject({
      recovered: true,
      lostKeys: [{ operationId: "op-flip-lost", file: "journal/active.json" }],
      unknownLoss: null,
    });
    expect((await auditLines(scene.stateDir)).at(-1)).toMatchObject({
      event: "journal_recovered",
      files: ["journal/active.json"],
      lostOperationIds: ["op-flip-lost"],
    });
    expect((await cli(scene.configPath, ["journal", "verify"])).code).toBe(0);

    const gate = await scene.gates.start();
    const retry = await scene.gates.relay(
      gate.port,
      titleWrite(gate.leaseId, "op-flip-lost"),
      scene.stateDir,
    );
    expect(retry.body).toMatchObject({
      error: "operation_lost",
      details: { operationId: "op-flip-lost", reason: "lost_record" },
    });
    expect(scene.gates.commandsFor("op-flip-lost")).toBe(1);
    const kept = await scene.gates.relay(gate.port, titleWrite(gate.leaseId, "op-flip-kept"), scene.stateDir);
    expect(kept.body).toMatchObject({ state: "completed", replayed: true });
    expect(scene.gates.commandsFor("op-flip-kept")).toBe(1);
    const fresh = await scene.gates.relay(gate.port, titleWrite(gate.leaseId, "op-flip-new"), scene.stateDir);
    expect(fresh.body).toMatchObject({ state: "completed", replayed: false });
    expect(scene.gates.commandsFor("op-flip-new")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("active.json deleted: every operationId the journal does not hold is refused (it cannot prove it never saw them)", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-gone"]);
    await nodeFs.rm(join(scene.stateDir, "journal", "active.json"));
    await expect(scene.gates.start()).rejects.toThrow(/journal_damaged/);

    const recovered = await cli(scene.configPath, ["journal", "recover", "--accept-loss"]);
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toContain("cannot be named");

    const gate = await scene.gates.start();
    const commandsBefore = scenarios.world.commandCount();
    for (const operationId of ["op-gone", "op-after-loss"]) {
      const answer = await scene.gates.relay(
        gate.port,
        titleWrite(gate.leaseId, operationId),
        scene.stateDir,
      );
      expect(answer.body).toMatchObject({ error: "operation_lost", details: { reason: "unknown_loss" } });
    }
    expect(scenarios.world.commandCount()).toBe(commandsBefore);
    expect(scene.gates.commandsFor("op-gone")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });
});

describe("journal accept-unknown-loss --checked-t3: the way forward after a loss nobody can name", () => {
  it("new operationIds are sent once again, while the writes the audit log names stay refused", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-audited"]);
    await nodeFs.rm(join(scene.stateDir, "journal", "active.json"));
    expect((await cli(scene.configPath, ["journal", "recover", "--accept-loss"])).code).toBe(0);

    // The gate says what is refused and the way out; verify lists what to check in T3.
    const stderr: string[] = [];
    const refusing = await scene.gates.start(undefined, stderr);
    expect(stderr.join("")).toContain("journal accept-unknown-loss --checked-t3");
    const refused = await scene.gates.relay(
      refusing.port,
      titleWrite(refusing.leaseId, "op-new"),
      scene.stateDir,
    );
    expect(refused.body).toMatchObject({ error: "operation_lost", details: { reason: "unknown_loss" } });
    expect(String((refused.body as { message?: unknown }).message)).toContain(
      "accept-unknown-loss --checked-t3",
    );
    refusing.process.kill("SIGTERM");
    await refusing.exited;
    const verify = await cli(scene.configPath, ["journal", "verify", "--json"]);
    expect(JSON.parse(verify.stdout).auditedBeforeLoss).toEqual([
      expect.objectContaining({ operationId: "op-audited" }),
    ]);

    expect((await cli(scene.configPath, ["journal", "accept-unknown-loss"])).code).toBe(64);
    const lifted = await cli(scene.configPath, ["journal", "accept-unknown-loss", "--checked-t3", "--json"]);
    expect(lifted.code).toBe(0);
    expect(JSON.parse(lifted.stdout)).toMatchObject({
      lifted: [{ files: ["journal/active.json"] }],
      stillRefused: [{ operationId: "op-audited" }],
    });
    expect((await auditLines(scene.stateDir)).at(-1)).toMatchObject({
      event: "journal_unknown_loss_lifted",
      files: ["journal/active.json"],
      stillRefusedOperationIds: ["op-audited"],
    });
    // Lifting twice has nothing to lift.
    expect((await cli(scene.configPath, ["journal", "accept-unknown-loss", "--checked-t3"])).code).not.toBe(
      0,
    );

    const gate = await scene.gates.start();
    const retry = await scene.gates.relay(gate.port, titleWrite(gate.leaseId, "op-audited"), scene.stateDir);
    expect(retry.body).toMatchObject({ error: "operation_lost", details: { reason: "lost_record" } });
    expect(scene.gates.commandsFor("op-audited")).toBe(1);
    const fresh = await scene.gates.relay(gate.port, titleWrite(gate.leaseId, "op-new"), scene.stateDir);
    expect(fresh.body).toMatchObject({ state: "completed", replayed: false });
    expect(scene.gates.commandsFor("op-new")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });
});

describe("a journal of the previous format", () => {
  it("the real gate opens it, migrated, and says so; verify finds it intact afterwards", async () => {
    const scene = await newScenario();
    await installPreviousFormatJournal(scene.stateDir);
    expect(JSON.parse((await cli(scene.configPath, ["journal", "verify", "--json"])).stdout)).toMatchObject({
      status: "legacy",
    });
    const stderr: string[] = [];
    const gate = await scene.gates.start(undefined, stderr);
    gate.process.kill("SIGTERM");
    expect(await gate.exited).toBe(0);
    expect(stderr.join("")).toContain(
      "journal migrated to the checksummed format (9 record(s), 2 sealed segment(s))",
    );
    const verify = await cli(scene.configPath, ["journal", "verify", "--json"]);
    expect(verify.code).toBe(0);
    // Its settled writes are older than the 7-day retention, so the gate's open pruned them after
    // the migration; the uncertain one is never pruned.
    expect(JSON.parse(verify.stdout)).toMatchObject({
      status: "intact",
      intact: { segments: 0, sealedRecords: 0, activeRecords: 1 },
    });
  });
});
