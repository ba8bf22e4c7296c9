import { join } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { DurableJsonFile, type JournalFs, nodeJournalFs } from "@t3-connector/core/durable";
import type { ThreadSeen } from "./derive.js";

export const SEEN_FILE = "seen.json";

export interface EnvironmentSeen {
  alias: string;
  /** When the first snapshot of this environment was recorded (nothing before it is emitted). */
  baselineAt: string;
  threads: Record<string, ThreadSeen>;
}

interface SeenDocument {
  format: "t3-connector/events-seen";
  environments: Record<string, EnvironmentSeen>;
}

function parseSeen(value: unknown): SeenDocument {
  const doc = value as Partial<SeenDocument> | null;
  if (
    doc?.format !== "t3-connector/events-seen" ||
    typeof doc.environments !== "object" ||
    doc.environments === null
  ) {
    throw new ConnectorError("state_dir_invalid", `${SEEN_FILE} is not an events state file`);
  }
  return doc as SeenDocument;
}

/**
 * The last-seen state of every thread of every environment, in one file written with core's
 * `DurableJsonFile` (fsynced temp + rename + fsynced directory, concurrent writes joined into one).
 * It is written after the events a change produced are in the outbox, so a crash in between
 * derives them again on restart, under the same ids, and the outbox drops them as known.
 */
export class SeenState {
  readonly #file: DurableJsonFile<SeenDocument>;
  #doc: SeenDocument;
  #lastWrite: Promise<void> = Promise.resolve();

  private constructor(file: DurableJsonFile<SeenDocument>, doc: SeenDocument) {
    this.#file = file;
    this.#doc = doc;
  }

  static async open(eventsDir: string, fs: JournalFs = nodeJournalFs): Promise<SeenState> {
    const file = new DurableJsonFile(fs, join(eventsDir, SEEN_FILE), parseSeen);
    const doc = (await file.read()) ?? { format: "t3-connector/events-seen" as const, environments: {} };
    return new SeenState(file, doc);
  }

  environment(environmentId: string): EnvironmentSeen | undefined {
    return this.#doc.environments[environmentId];
  }

  /** Records the first snapshot of an environment: what it shows then is history, not news. */
  baseline(
    environmentId: string,
    alias: string,
    at: string,
    threads: Record<string, ThreadSeen>,
  ): Promise<void> {
    this.#doc.environments[environmentId] = { alias, baselineAt: at, threads };
    return this.#save();
  }

  thread(environmentId: string, threadId: string): ThreadSeen | undefined {
    return this.#doc.environments[environmentId]?.threads[threadId];
  }

  setThread(environmentId: string, threadId: string, seen: ThreadSeen): Promise<void> {
    const environment = this.#doc.environments[environmentId];
    if (environment === undefined) return Promise.resolve();
    environment.threads[threadId] = seen;
    return this.#save();
  }

  /** Waits for the last write (callers do not always wait), then releases the file. */
  async close(): Promise<void> {
    await this.#lastWrite.catch(() => undefined);
    await this.#file.close();
  }

  #save(): Promise<void> {
    this.#lastWrite = this.#write();
    return this.#lastWrite;
  }

  #write(): Promise<void> {
    // The adapter serialises the document when its write starts: changes made meanwhile join it.
    // A thread that left the shell keeps its entry, so coming back (unarchived) is not news.
    return this.#file.write(this.#doc);
  }
}
