/**
 * A fresh state directory and hand-moved clock per test, with every journal the test opens closed
 * after it: the set-up the journal's open/verify/recover tests share.
 */

import { ManualClock, makeTempDir, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach } from "vitest";
import { type Journal, type JournalOptions, openJournal } from "../../../src/journal/index.js";

export interface JournalDir {
  readonly temp: TempDir;
  readonly stateDir: string;
  readonly clock: ManualClock;
  /** `{ stateDir, clock }`: what every journal call of the test takes. */
  readonly options: { stateDir: string; clock: ManualClock };
  /** `openJournal` on this test's state directory and clock, with the file's defaults. */
  open(options?: Omit<JournalOptions, "stateDir" | "clock">): Promise<Journal>;
  /** A journal the test opened another way, closed after it like the ones `open` gives. */
  keep(journal: Journal): void;
  /** A journal the test closes itself. */
  release(journal: Journal): void;
}

/** Registers the per-test set-up and clean-up; `defaults` are the file's open options. */
export function useJournalDir(defaults: Omit<JournalOptions, "stateDir" | "clock"> = {}): JournalDir {
  let made: { temp: TempDir; clock: ManualClock } | undefined;
  const journals: Journal[] = [];

  beforeEach(async () => {
    made = { temp: await makeTempDir(), clock: new ManualClock() };
  });
  afterEach(async () => {
    await Promise.all(journals.splice(0).map((journal) => journal.close()));
    await made?.temp.remove();
  });

  const current = () => {
    if (made === undefined) throw new Error("the journal dir is made in beforeEach");
    return made;
  };

  const dir: JournalDir = {
    get temp() {
      return current().temp;
    },
    get stateDir() {
      return current().temp.stateDir;
    },
    get clock() {
      return current().clock;
    },
    get options() {
      return { stateDir: dir.stateDir, clock: dir.clock };
    },
    async open(options = {}) {
      const journal = await openJournal({ ...dir.options, ...defaults, ...options });
      journals.push(journal);
      return journal;
    },
    keep(journal) {
      journals.push(journal);
    },
    release(journal) {
      journals.splice(journals.indexOf(journal), 1);
    },
  };
  return dir;
}
