import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import {
  type JournalRecord,
  journalKey,
  openJournal,
} from "../../packages/write-engine/src/journal/index.js";
import { type ManualClock, request } from "./journal-helpers.js";

/** A closed journal on disk: sealed segments of completed writes, recent ones and one uncertain write in the active segment. */
export interface WrittenJournal {
  stateDir: string;
  directory: string;
  /** operationId → key of every record written. */
  keys: Map<string, string>;
  /** Segment file names, oldest first. */
  segments: string[];
  /** operationIds in each segment file. */
  segmentOperations: Map<string, string[]>;
  /** operationIds in the active segment. */
  activeOperations: string[];
}

export const SMALL_SEGMENTS = { segmentRecords: 3, recentRecords: 1 } as const;

export async function writeJournal(
  stateDir: string,
  clock: ManualClock,
  completed = 10,
): Promise<WrittenJournal> {
  const journal = await openJournal({ stateDir, clock, ...SMALL_SEGMENTS });
  const keys = new Map<string, string>();
  for (let index = 0; index < completed; index += 1) {
    const operationId = `op-${index}`;
    const { record } = await journal.reserve(request(operationId));
    keys.set(operationId, record.key);
    await journal.markUncertain(record.key, { commandId: `c-${index}` });
    await journal.complete(record.key, { sequence: index });
    clock.advance(1000);
  }
  const open = await journal.reserve(request("op-open"));
  keys.set("op-open", open.record.key);
  await journal.markUncertain(open.record.key, { commandId: "c-open" });
  // Seals run in the journal's maintenance queue, started by a settle and awaited by nobody, and a
  // close refuses the ones still queued (their records simply stay active until the next open).
  // A prune is queued behind them, so awaiting it settles every seal first; with the manual clock
  // ten seconds on and a week's retention it drops nothing.
  await journal.prune();
  await journal.close();

  const directory = join(stateDir, "journal");
  const segments = (await nodeFs.readdir(directory))
    .filter((name) => /^segment-\d{8}\.json$/.test(name))
    .sort();
  const byKey = new Map([...keys].map(([operationId, key]) => [key, operationId]));
  const segmentOperations = new Map<string, string[]>();
  for (const name of segments) {
    const document = JSON.parse(await nodeFs.readFile(join(directory, name), "utf8")) as {
      records: JournalRecord[];
    };
    segmentOperations.set(
      name,
      document.records.map((record) => byKey.get(record.key) ?? "?"),
    );
  }
  const active = JSON.parse(await nodeFs.readFile(join(directory, "active.json"), "utf8")) as {
    records: Record<string, JournalRecord>;
  };
  const activeOperations = Object.keys(active.records).map((key) => byKey.get(key) ?? "?");
  return { stateDir, directory, keys, segments, segmentOperations, activeOperations };
}

/**
 * The journal `writeJournal` left in `written.stateDir`, copied whole (modes kept) into a state
 * directory that does not exist yet: a file's tests damage a copy each instead of writing the
 * same journal again, record by record, for every test.
 */
export async function copyWrittenJournal(written: WrittenJournal, stateDir: string): Promise<WrittenJournal> {
  await nodeFs.cp(written.stateDir, stateDir, { recursive: true, errorOnExist: true, force: false });
  return { ...written, stateDir, directory: join(stateDir, "journal") };
}

export function keyOf(operationId: string): string {
  return journalKey(request(operationId));
}

/** Rewrite one JSON file of the journal in place (keeps its 0600 mode), like a hand edit would. */
export async function editJson(path: string, edit: (value: Record<string, unknown>) => void): Promise<void> {
  const value = JSON.parse(await nodeFs.readFile(path, "utf8")) as Record<string, unknown>;
  edit(value);
  await nodeFs.writeFile(path, JSON.stringify(value));
}

/** Cut a file to half its length, as a torn copy or a full disk would. */
export async function truncateHalf(path: string): Promise<void> {
  const text = await nodeFs.readFile(path, "utf8");
  await nodeFs.writeFile(path, text.slice(0, Math.floor(text.length / 2)));
}

/** Turn a current journal into one written by the previous format: version 1, no checksums, no manifest, no marker. */
export async function downgradeToPreviousFormat(stateDir: string): Promise<void> {
  const directory = join(stateDir, "journal");
  const strip = (record: Record<string, unknown>) => {
    delete record.checksum;
  };
  for (const name of await nodeFs.readdir(directory)) {
    if (/^segment-\d{8}\.json$/.test(name)) {
      await editJson(join(directory, name), (document) => {
        document.version = 1;
        for (const record of document.records as Record<string, unknown>[]) strip(record);
      });
    }
  }
  await editJson(join(directory, "active.json"), (document) => {
    document.version = 1;
    delete document.checksum;
    for (const record of Object.values(document.records as Record<string, Record<string, unknown>>))
      strip(record);
  });
  await nodeFs.rm(join(directory, "manifest.json"));
  await nodeFs.rm(join(stateDir, "journal-identity.json"));
}

const PREVIOUS_FORMAT = new URL(
  "../../packages/write-engine/test/journal/fixtures/previous-format/journal/",
  import.meta.url,
);

/** Copy the previous-format fixture into `stateDir` as the previous version left it (0700 / 0600). */
export async function installPreviousFormatJournal(stateDir: string): Promise<void> {
  const directory = join(stateDir, "journal");
  await nodeFs.mkdir(directory, { recursive: true, mode: 0o700 });
  await nodeFs.chmod(stateDir, 0o700);
  await nodeFs.chmod(directory, 0o700);
  for (const name of await nodeFs.readdir(PREVIOUS_FORMAT)) {
    await nodeFs.copyFile(new URL(name, PREVIOUS_FORMAT), join(directory, name));
    await nodeFs.chmod(join(directory, name), 0o600);
  }
}
