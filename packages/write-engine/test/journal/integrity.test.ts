import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { type ConnectorError, isConnectorError } from "@t3-connector/core";
import {
  copyWrittenJournal,
  downgradeToPreviousFormat,
  editJson,
  installPreviousFormatJournal,
  keyOf,
  SMALL_SEGMENTS,
  truncateHalf,
  type WrittenJournal,
  writeJournal,
} from "@t3-connector/test-support/damaged-journal";
import {
  DAY_MS,
  ManualClock,
  makeTempDir,
  request,
  type TempDir,
} from "@t3-connector/test-support/journal-helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type JournalRecord,
  journalKey,
  openJournal,
  recoverJournal,
  verifyJournal,
} from "../../src/journal/index.js";
import { faultyFs } from "./support/faulty-fs.js";
import { useJournalDir } from "./support/journal-dir.js";

const journalDir = useJournalDir(SMALL_SEGMENTS);
const open = journalDir.open;

async function openFailure(): Promise<ConnectorError> {
  const error = await openJournal({
    ...journalDir.options,
    ...SMALL_SEGMENTS,
  }).then(
    (journal) => {
      journalDir.keep(journal);
      throw new Error("the damaged journal opened");
    },
    (caught: unknown) => caught,
  );
  if (!isConnectorError(error)) throw error;
  return error;
}

function findings(error: ConnectorError) {
  return error.details?.findings as Array<{
    file: string;
    problem: string;
    lostRecords: number | null;
    lostOperationIds: string[];
  }>;
}

// One journal written per file, record by record; each test damages its own copy of it.
let template: { temp: TempDir; journal: WrittenJournal; clockMs: number } | undefined;
beforeAll(async () => {
  const temp = await makeTempDir();
  const clock = new ManualClock();
  template = { temp, journal: await writeJournal(temp.stateDir, clock), clockMs: clock.now() };
});
afterAll(async () => {
  await template?.temp.remove();
});

async function written(): Promise<WrittenJournal> {
  if (template === undefined) throw new Error("the journal is written in beforeAll");
  const journal = await copyWrittenJournal(template.journal, journalDir.stateDir);
  // The test's clock stands where the writer's stood when it closed the journal.
  journalDir.clock.advance(template.clockMs - journalDir.clock.now());
  // Three segments at least, so that there is an oldest, a middle and a newest.
  expect(journal.segments.length).toBeGreaterThanOrEqual(3);
  expect(journal.activeOperations).toContain("op-open");
  return journal;
}

describe("a damaged journal refuses to open, naming each file and what it held", () => {
  it.each([
    ["the oldest", 0],
    ["a middle", 1],
  ])("%s sealed segment deleted: journal_damaged names it and its records", async (_label, position) => {
    const journal = await written();
    const name = journal.segments[position] as string;
    await nodeFs.rm(join(journal.directory, name));

    const error = await openFailure();
    expect(error.code).toBe("journal_damaged");
    expect(error.message).toContain(`journal/${name}`);
    expect(error.message).toContain("journal recover --accept-loss");
    expect(error.message).toContain("journal verify");
    const lostOperations = journal.segmentOperations.get(name) ?? [];
    expect(error.message).toContain(`operationIds ${lostOperations[0]} … ${lostOperations.at(-1)}`);
    expect(findings(error)).toEqual([
      expect.objectContaining({
        file: `journal/${name}`,
        problem: "missing",
        lostRecords: journal.segmentOperations.get(name)?.length,
      }),
    ]);
  });

  it("active.json deleted while segments remain: journal_damaged, its records unknown", async () => {
    const journal = await written();
    await nodeFs.rm(join(journal.directory, "active.json"));
    const error = await openFailure();
    expect(error.code).toBe("journal_damaged");
    expect(findings(error)).toEqual([
      expect.objectContaining({ file: "journal/active.json", problem: "missing", lostRecords: null }),
    ]);
  });

  it("the manifest deleted: journal_damaged names it", async () => {
    await written();
    await nodeFs.rm(join(journalDir.stateDir, "journal", "manifest.json"));
    const error = await openFailure();
    expect(error.details?.files).toEqual(["journal/manifest.json"]);
  });

  it("the identity marker deleted: journal_damaged names it", async () => {
    await written();
    await nodeFs.rm(join(journalDir.stateDir, "journal-identity.json"));
    const error = await openFailure();
    expect(error.details?.files).toEqual(["journal-identity.json"]);
  });

  it("a truncated segment and a truncated active segment are both named", async () => {
    const journal = await written();
    const name = journal.segments[1] as string;
    await truncateHalf(join(journal.directory, name));
    await truncateHalf(join(journal.directory, "active.json"));
    const error = await openFailure();
    expect(findings(error).map((finding) => [finding.file, finding.problem])).toEqual([
      [`journal/${name}`, "truncated"],
      ["journal/active.json", "truncated"],
    ]);
  });

  it("bytes changed inside a sealed record: the segment no longer matches the manifest", async () => {
    const journal = await written();
    const name = journal.segments[0] as string;
    const path = join(journal.directory, name);
    const text = await nodeFs.readFile(path, "utf8");
    await nodeFs.writeFile(path, text.replace('"sequence":0', '"sequence":9'));
    const error = await openFailure();
    expect(findings(error)).toEqual([
      expect.objectContaining({ file: `journal/${name}`, problem: "altered" }),
    ]);
  });

  it("bytes changed inside an active record: the record is named by its operationId", async () => {
    const journal = await written();
    await editJson(join(journal.directory, "active.json"), (document) => {
      const record = (document.records as Record<string, JournalRecord>)[keyOf("op-open")];
      if (record?.derivedIds === null || record === undefined) throw new Error("no open record");
      record.derivedIds = { commandId: "c-other" };
    });
    const error = await openFailure();
    expect(findings(error)).toEqual([
      expect.objectContaining({
        file: "journal/active.json",
        problem: "record_altered",
        lostOperationIds: ["op-open"],
      }),
    ]);
  });

  it("a completed record flipped back to preparing is caught by its checksum", async () => {
    const journal = await written();
    const completed = journal.activeOperations.find((operationId) => operationId !== "op-open") as string;
    await editJson(join(journal.directory, "active.json"), (document) => {
      const record = (document.records as Record<string, Record<string, unknown>>)[keyOf(completed)];
      if (record === undefined) throw new Error("no completed record in the active segment");
      record.state = "preparing";
      record.receipt = null;
      record.settledAt = null;
    });
    const error = await openFailure();
    expect(error.code).toBe("journal_damaged");
    expect(findings(error)).toEqual([
      expect.objectContaining({
        file: "journal/active.json",
        problem: "record_altered",
        lostOperationIds: [completed],
      }),
    ]);
  });

  it("a record removed from the active segment: its checksum over the records catches it", async () => {
    const journal = await written();
    await editJson(join(journal.directory, "active.json"), (document) => {
      delete (document.records as Record<string, unknown>)[keyOf("op-open")];
    });
    const error = await openFailure();
    expect(findings(error)).toEqual([
      expect.objectContaining({ file: "journal/active.json", problem: "altered" }),
    ]);
  });

  it("changes nothing on disk when it refuses", async () => {
    const journal = await written();
    await nodeFs.rm(join(journal.directory, journal.segments[0] as string));
    const before = (await nodeFs.readdir(journal.directory)).sort();
    await openFailure();
    expect((await nodeFs.readdir(journal.directory)).sort()).toEqual(before);
  });
});

describe("a fresh state directory and an emptied one", () => {
  it("a directory that never had a journal opens empty and is marked as having one", async () => {
    expect((await verifyJournal(journalDir.options)).status).toBe("fresh");
    const journal = await open();
    expect(journal.stats().retained).toBe(0);
    expect(await nodeFs.readdir(journalDir.stateDir)).toContain("journal-identity.json");
  });

  it("a journal whose files were all deleted refuses to open", async () => {
    const journal = await written();
    for (const name of await nodeFs.readdir(journal.directory))
      await nodeFs.rm(join(journal.directory, name));
    const error = await openFailure();
    expect(error.details?.files).toEqual(["journal/manifest.json", "journal/active.json"]);
  });

  it("a journal directory deleted whole refuses to open (the marker outside it remembers)", async () => {
    const journal = await written();
    await nodeFs.rm(journal.directory, { recursive: true });
    const error = await openFailure();
    expect(error.code).toBe("journal_damaged");
  });
});

describe("journal verify", () => {
  it("reports an intact journal as intact, with its record counts", async () => {
    const journal = await written();
    const report = await verifyJournal(journalDir.options);
    expect(report.status).toBe("intact");
    expect(report.findings).toEqual([]);
    expect(report.intact.sealedRecords + report.intact.activeRecords).toBe(journal.keys.size);
  });

  it("reports the same findings as the refused open, and changes nothing", async () => {
    const journal = await written();
    await nodeFs.rm(join(journal.directory, journal.segments[1] as string));
    const error = await openFailure();
    const report = await verifyJournal(journalDir.options);
    expect(report.status).toBe("damaged");
    expect(report.findings.map((finding) => finding.file)).toEqual(error.details?.files);
    await expect(openFailure()).resolves.toMatchObject({ code: "journal_damaged" });
  });
});

describe("journal recover --accept-loss", () => {
  it("rebuilds from what survives; a lost segment's operations are refused, never reserved again", async () => {
    const journal = await written();
    const name = journal.segments[1] as string;
    const lostOperations = journal.segmentOperations.get(name) ?? [];
    await nodeFs.rm(join(journal.directory, name));

    const result = await recoverJournal(journalDir.options);
    expect(result.recovered).toBe(true);
    expect(result.lostKeys.map((lost) => lost.key).sort()).toEqual(lostOperations.map(keyOf).sort());
    expect(result.unknownLoss).toBeNull();

    const reopened = await open();
    for (const operationId of lostOperations) {
      await expect(reopened.reserve(request(operationId))).rejects.toMatchObject({
        code: "operation_lost",
        details: { operationId, reason: "lost_record", file: `journal/${name}` },
      });
    }
    // What survived replays; a new operation goes through.
    const kept = journal.segmentOperations.get(journal.segments[0] as string)?.[0] as string;
    expect((await reopened.reserve(request(kept))).kind).toBe("existing");
    expect((await reopened.reserve(request("op-new"))).kind).toBe("reserved");
    journalDir.release(reopened);
    await reopened.close();
    const report = await verifyJournal(journalDir.options);
    expect(report.status).toBe("intact");
    expect(report.refused.keys).toBe(lostOperations.length);
  });

  it("keeps the refusal across reopens, and lifts it once the retention has passed", async () => {
    const journal = await written();
    const name = journal.segments[0] as string;
    const lost = journal.segmentOperations.get(name)?.[0] as string;
    await nodeFs.rm(join(journal.directory, name));
    await recoverJournal({ ...journalDir.options, retentionMs: 7 * DAY_MS });

    let reopened = await open();
    await expect(reopened.reserve(request(lost))).rejects.toMatchObject({ code: "operation_lost" });
    journalDir.release(reopened);
    await reopened.close();
    journalDir.clock.advance(8 * DAY_MS);
    reopened = await open();
    expect((await reopened.reserve(request(lost))).kind).toBe("reserved");
  });

  it("after losing the active segment, every operation the journal does not hold is refused", async () => {
    const journal = await written();
    await nodeFs.rm(join(journal.directory, "active.json"));
    const result = await recoverJournal(journalDir.options);
    expect(result.unknownLoss?.files).toEqual(["journal/active.json"]);

    const reopened = await open();
    for (const operationId of ["op-open", "op-never-seen"]) {
      await expect(reopened.reserve(request(operationId))).rejects.toMatchObject({
        code: "operation_lost",
        details: { reason: "unknown_loss" },
      });
    }
    const sealed = journal.segmentOperations.get(journal.segments[0] as string)?.[0] as string;
    expect((await reopened.reserve(request(sealed))).kind).toBe("existing");
  });

  it("a flipped record is refused by name; the damaged file is kept aside", async () => {
    const journal = await written();
    await editJson(join(journal.directory, "active.json"), (document) => {
      const record = (document.records as Record<string, Record<string, unknown>>)[keyOf("op-open")];
      if (record === undefined) throw new Error("no open record");
      record.state = "preparing";
    });
    const result = await recoverJournal(journalDir.options);
    expect(result.lostKeys).toEqual([
      expect.objectContaining({ key: keyOf("op-open"), operationId: "op-open" }),
    ]);
    expect(result.movedAside).toEqual([expect.stringMatching(/^journal\/active\.json\.damaged-/)]);
    const reopened = await open();
    await expect(reopened.reserve(request("op-open"))).rejects.toMatchObject({ code: "operation_lost" });
    expect((await reopened.reserve(request("op-new"))).kind).toBe("reserved");
  });

  it("does nothing to an intact journal", async () => {
    await written();
    const result = await recoverJournal(journalDir.options);
    expect(result.recovered).toBe(false);
    expect(result.report.status).toBe("intact");
  });
});

describe("a journal of the previous format", () => {
  it("the fixture written by the previous version opens, migrated, every record in its state", async () => {
    await installPreviousFormatJournal(journalDir.stateDir);
    const migrated: Array<{ records: number; segments: number }> = [];
    const journal = await openJournal({
      ...journalDir.options,
      onMigrated: (summary) => migrated.push(summary),
    });
    journalDir.keep(journal);
    expect(migrated).toEqual([{ records: 9, segments: 2 }]);
    const identity = {
      environmentId: "env-previous",
      destination: "t3://env-previous",
      caller: "local:t3-connector-write|loopback",
    };
    const states = await journal.list();
    expect(states.map((record) => [record.operationId, record.state])).toEqual([
      ...[0, 1, 2, 3, 4].map((index) => [`prev-${index}`, "completed"]),
      ["prev-5", "refused"],
      ["prev-6", "completed"],
      ["prev-7", "completed"],
      ["prev-open", "uncertain"],
    ]);
    const open = await journal.get(journalKey({ ...identity, operationId: "prev-open" }));
    expect(open?.command).toEqual({
      kind: "dispatch",
      body: { type: "thread.meta.update", commandId: "cmd-prev-open" },
    });
    journalDir.release(journal);
    await journal.close();
    expect((await verifyJournal(journalDir.options)).status).toBe("intact");
  });

  it("opens: it is migrated in place on the first open, every record kept, and checked from then on", async () => {
    const journal = await written();
    await downgradeToPreviousFormat(journalDir.stateDir);
    expect((await verifyJournal(journalDir.options)).status).toBe("legacy");

    const migrated: Array<{ records: number; segments: number }> = [];
    const reopened = await openJournal({
      ...journalDir.options,
      ...SMALL_SEGMENTS,
      onMigrated: (summary) => migrated.push(summary),
    });
    journalDir.keep(reopened);
    expect(migrated).toEqual([{ records: journal.keys.size, segments: journal.segments.length }]);
    for (const [operationId, key] of journal.keys) {
      expect((await reopened.get(key))?.state, operationId).toBe(
        operationId === "op-open" ? "uncertain" : "completed",
      );
    }
    journalDir.release(reopened);
    await reopened.close();
    expect((await verifyJournal(journalDir.options)).status).toBe("intact");
    await nodeFs.rm(join(journal.directory, journal.segments[0] as string));
    await expect(openFailure()).resolves.toMatchObject({ code: "journal_damaged" });
  });
});

describe("what a crash can leave is not damage", () => {
  it("a segment sealed but not yet listed in the manifest is adopted on the next open, losing nothing", async () => {
    const disk = faultyFs();
    let reportUnavailable: (code: string) => void = () => undefined;
    const unavailable = new Promise<string>((resolve) => {
      reportUnavailable = resolve;
    });
    const journal = await openJournal({
      ...journalDir.options,
      fs: disk.fs,
      segmentRecords: 2,
      recentRecords: 0,
      onUnavailable: (error) => reportUnavailable(error.code),
    });
    // The seal writes its segment, then fails to list it: as if killed between the two.
    disk.failAt("rename", /manifest\.json/);
    for (const operationId of ["op-1", "op-2"]) {
      const { record } = await journal.reserve(request(operationId));
      await journal.refuse(record.key, { code: "scope_denied", message: "outside the lease" });
    }
    expect(await unavailable).toBe("journal_unavailable");
    await journal.close();

    const reopened = await open();
    for (const operationId of ["op-1", "op-2"]) {
      expect((await reopened.get(keyOf(operationId)))?.state).toBe("refused");
    }
    expect(reopened.stats().segments).toBe(1);
  });
});
