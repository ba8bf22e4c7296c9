/**
 * `liftUnknownLoss` (`journal accept-unknown-loss --checked-t3`): after a loss nobody can name, new
 * operationIds pass again, while what the audit log saw dispatched in the retention window before
 * the loss, and the journal does not hold, stays refused by environment and operationId.
 */
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { SMALL_SEGMENTS, writeJournal } from "@t3-connector/test-support/damaged-journal";
import { DAY_MS, request } from "@t3-connector/test-support/journal-helpers";
import { describe, expect, it } from "vitest";
import { liftUnknownLoss, recoverJournal } from "../../src/journal/index.js";
import { useJournalDir } from "./support/journal-dir.js";

const RETENTION_MS = 7 * DAY_MS;

const journalDir = useJournalDir(SMALL_SEGMENTS);
const open = journalDir.open;

/** A journal whose active segment is gone, recovered: an unknown loss in force. */
async function afterUnknownLoss(): Promise<number> {
  const journal = await writeJournal(journalDir.stateDir, journalDir.clock);
  await nodeFs.rm(join(journal.directory, "active.json"));
  const recovered = await recoverJournal({
    ...journalDir.options,
    retentionMs: RETENTION_MS,
  });
  if (recovered.unknownLoss === null) throw new Error("no unknown loss was recorded");
  return recovered.unknownLoss.recoveredAt;
}

describe("lifting an unknown loss", () => {
  it("keeps refusing only what the audit log saw in the retention window before the loss", async () => {
    const lostAt = await afterUnknownLoss();
    journalDir.clock.advance(60_000);
    const result = await liftUnknownLoss({
      ...journalDir.options,
      retentionMs: RETENTION_MS,
      audited: [
        { environmentId: "env-a", operationId: "op-recent", at: lostAt - 3_600_000 },
        { environmentId: "env-a", operationId: "op-too-old", at: lostAt - RETENTION_MS - 1 },
        { environmentId: "env-a", operationId: "op-after", at: lostAt + 1 },
        { environmentId: "env-b", operationId: "op-elsewhere", at: lostAt - 1 },
      ],
    });
    expect(result.lifted).toEqual([expect.objectContaining({ files: ["journal/active.json"] })]);
    expect(result.stillRefused.map((lost) => [lost.environmentId, lost.operationId])).toEqual([
      ["env-a", "op-recent"],
      ["env-b", "op-elsewhere"],
    ]);

    const journal = await open();
    await expect(journal.reserve(request("op-recent"))).rejects.toMatchObject({
      code: "operation_lost",
      details: { reason: "lost_record", file: "audit.log" },
    });
    // Same operationId, another environment: another operation, not named by the audit log.
    expect(
      (await journal.reserve(request("op-recent", { environmentId: "env-c", destination: "t3://env-c" })))
        .kind,
    ).toBe("reserved");
    for (const operationId of ["op-too-old", "op-after", "op-brand-new"]) {
      expect((await journal.reserve(request(operationId))).kind).toBe("reserved");
    }
    expect(journal.unknownLossesInForce()).toEqual([]);
  });

  it("has nothing to lift when no unknown loss is in force, and says so", async () => {
    await writeJournal(journalDir.stateDir, journalDir.clock);
    await expect(liftUnknownLoss({ ...journalDir.options, audited: [] })).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("nothing to lift"),
    });
  });

  it("refuses while the journal is damaged again: recover first", async () => {
    await afterUnknownLoss();
    await nodeFs.rm(join(journalDir.stateDir, "journal", "manifest.json"));
    await expect(liftUnknownLoss({ ...journalDir.options, audited: [] })).rejects.toMatchObject({
      code: "journal_damaged",
    });
  });
});
