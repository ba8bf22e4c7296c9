/**
 * Generations (ADR 0006 §14): files that only move forward. An older `active.json` or manifest
 * put back is `rolled_back`, named with the file that recorded a later generation; the crash
 * leftovers a write can legitimately leave (a manifest written, the active segment not yet) open.
 */
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { SMALL_SEGMENTS } from "@t3-connector/test-support/damaged-journal";
import { ManualClock, makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type JournalWitness, openJournal, recoverJournal, verifyJournal } from "../../src/journal/index.js";

let temp: TempDir;
let clock: ManualClock;

beforeEach(async () => {
  temp = await makeTempDir();
  clock = new ManualClock();
});
afterEach(async () => {
  await temp.remove();
});

/** `count` completed writes, then a clean close. */
async function writeSome(prefix: string, count: number): Promise<void> {
  const journal = await openJournal({ stateDir: temp.stateDir, clock, ...SMALL_SEGMENTS });
  for (let index = 0; index < count; index += 1) {
    const { record } = await journal.reserve(request(`${prefix}-${index}`));
    await journal.markUncertain(record.key, { commandId: `${prefix}-${index}` });
    await journal.complete(record.key, { sequence: index });
    clock.advance(1000);
  }
  await journal.close();
}

async function openError(witness?: JournalWitness) {
  const caught = await openJournal({
    stateDir: temp.stateDir,
    clock,
    ...SMALL_SEGMENTS,
    ...(witness ? { witness } : {}),
  }).then(
    async (journal) => {
      await journal.close();
      throw new Error("the journal opened");
    },
    (error: unknown) => error,
  );
  if (!isConnectorError(caught, "journal_damaged")) throw caught;
  return caught.details?.findings as Array<{ file: string; problem: string; detail: string }>;
}

const file = (name: string) => join(temp.stateDir, name);

describe("journal generations", () => {
  it("every durable write advances the active generation, and a clean close records it in the marker", async () => {
    await writeSome("a", 2);
    const active = JSON.parse(await nodeFs.readFile(file("journal/active.json"), "utf8"));
    const marker = JSON.parse(await nodeFs.readFile(file("journal-identity.json"), "utf8"));
    // creation (1), then markUncertain + complete for each write (reservations ride along).
    expect(active.generation).toBe(5);
    expect(marker).toMatchObject({ activeGeneration: 5, manifestGeneration: active.manifestGeneration });
  });

  it("an older active.json put back is rolled_back, named with the marker's generation", async () => {
    await writeSome("a", 1);
    const older = await nodeFs.readFile(file("journal/active.json"));
    await writeSome("b", 1);
    await nodeFs.writeFile(file("journal/active.json"), older);
    const findings = await openError();
    expect(findings).toEqual([
      expect.objectContaining({
        file: "journal/active.json",
        problem: "rolled_back",
        detail: expect.stringContaining("generation 3, but journal-identity.json recorded generation 5"),
      }),
    ]);
    expect((await verifyJournal({ stateDir: temp.stateDir, clock })).status).toBe("damaged");
  });

  it("an older manifest put back (before a seal) is rolled_back, named with the active segment's record of it", async () => {
    await writeSome("a", 1);
    const older = await nodeFs.readFile(file("journal/manifest.json"));
    await writeSome("b", 6); // seals at least one segment: the manifest is rewritten
    await nodeFs.writeFile(file("journal/manifest.json"), older);
    const findings = await openError();
    expect(findings).toContainEqual(
      expect.objectContaining({ file: "journal/manifest.json", problem: "rolled_back" }),
    );
  });

  it("a witness that recorded a later generation catches a consistent restore of journal and marker", async () => {
    await writeSome("a", 1);
    const saved = await Promise.all(
      ["journal/active.json", "journal/manifest.json", "journal-identity.json"].map(async (name) => [
        name,
        await nodeFs.readFile(file(name)),
      ]),
    );
    await writeSome("b", 1);
    for (const [name, bytes] of saved) await nodeFs.writeFile(file(name as string), bytes as Buffer);
    expect(await verifyJournal({ stateDir: temp.stateDir, clock })).toMatchObject({ status: "intact" });
    const witness: JournalWitness = {
      check: async () => ({
        findings: [],
        damagedFiles: [],
        evidence: ["audit.log (9 line(s))"],
        generation: { value: 5, file: "audit.log" },
        coversFrom: null,
      }),
    };
    const findings = await openError(witness);
    expect(findings[0]?.detail).toContain("audit.log recorded generation 5");
    // The recovery writes past every generation recorded: the witness is no longer ahead.
    const recovered = await recoverJournal({ stateDir: temp.stateDir, clock, witness });
    expect(recovered.generation).toBe(6);
    expect(await verifyJournal({ stateDir: temp.stateDir, clock, witness })).toMatchObject({
      status: "intact",
    });
  });

  it("a journal deleted with its marker is damage when the witness has evidence, a first start when nothing does", async () => {
    await writeSome("a", 1);
    await nodeFs.rm(file("journal"), { recursive: true });
    await nodeFs.rm(file("journal-identity.json"));
    const evidence: JournalWitness = {
      check: async () => ({
        findings: [],
        damagedFiles: [],
        evidence: ["credentials.json (enrolled passkeys)"],
        generation: null,
        coversFrom: null,
      }),
    };
    const findings = await openError(evidence);
    expect(findings).toEqual([
      expect.objectContaining({
        file: "journal/",
        problem: "missing",
        detail: expect.stringContaining("credentials.json"),
      }),
    ]);
    // With no witness evidence at all the state directory is new: the journal is created.
    const journal = await openJournal({ stateDir: temp.stateDir, clock });
    expect(journal.stats().retained).toBe(0);
    await journal.close();
  });

  it("a journal written before generations (none in its files) opens, and is protected from its first write on", async () => {
    await writeSome("a", 1);
    for (const name of ["journal/active.json", "journal/manifest.json", "journal-identity.json"]) {
      const value = JSON.parse(await nodeFs.readFile(file(name), "utf8"));
      delete value.generation;
      delete value.manifestGeneration;
      delete value.activeGeneration;
      if (name === "journal/active.json") {
        const { activeChecksum } = await import("../../src/journal/checksum.js");
        value.checksum = activeChecksum(value.records);
      }
      if (name === "journal/manifest.json") {
        const { serializeManifest } = await import("../../src/journal/manifest.js");
        const { checksum: _old, ...body } = value;
        await nodeFs.writeFile(file(name), serializeManifest(body));
        continue;
      }
      await nodeFs.writeFile(file(name), JSON.stringify(value));
    }
    expect(await verifyJournal({ stateDir: temp.stateDir, clock })).toMatchObject({ status: "intact" });
    const older = await nodeFs.readFile(file("journal/active.json"));
    await writeSome("b", 1);
    await nodeFs.writeFile(file("journal/active.json"), older);
    expect((await openError())[0]).toMatchObject({ file: "journal/active.json", problem: "rolled_back" });
  });
});
