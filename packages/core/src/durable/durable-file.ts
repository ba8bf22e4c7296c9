import { basename, dirname, join } from "node:path";
import type { Adapter } from "lowdb";
import { ConnectorError, isConnectorError } from "../errors.js";
import {
  CREATE_EXCLUSIVE,
  errorCode,
  FILE_MODE,
  isSymlinkRefusal,
  type JournalFs,
  journalUnavailable,
  READ_DIRECTORY,
  READ_NO_FOLLOW,
  stateDirInvalid,
  syncDirectory,
} from "./fs.js";

/** Temp files are `.<target>.<pid>.<n>.tmp` next to their target; anything matching is leftover. */
export const TEMP_FILE_PATTERN = /^\..+\.\d+\.\d+\.tmp$/;
let tempCounter = 0;

/**
 * Replace `target` with `text` so that, once this resolves, the new content survives a crash or a
 * power loss, and at no moment can a reader see a torn file:
 * 1. write a fresh temp file in the same directory (create-exclusive, never through a symlink, 0600);
 * 2. fsync it, so its bytes are on disk before its name is;
 * 3. rename it over the target (atomic within one directory: old or new, never half);
 * 4. fsync the directory, so the rename itself is durable.
 * A crash before 3 leaves the old file and a temp file (removed on the next open).
 */
export async function writeFileDurably(
  fs: JournalFs,
  target: string,
  text: string | Uint8Array,
  directory?: DirectoryHandle,
): Promise<void> {
  const temp = await writeSyncedTemp(fs, target, text);
  let renamed = false;
  try {
    await fs.rename(temp, target);
    renamed = true;
    if (directory === undefined) await syncDirectory(fs, dirname(target));
    else await directory.sync();
  } catch (error) {
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Steps 1–2 above: a fsynced 0600 temp file next to `target`; returns its path. */
export async function writeSyncedTemp(
  fs: JournalFs,
  target: string,
  text: string | Uint8Array,
): Promise<string> {
  tempCounter += 1;
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${tempCounter}.tmp`);
  // 0600 at creation (a umask can only remove bits), so the file is never readable by others.
  const handle = await fs.open(temp, CREATE_EXCLUSIVE, FILE_MODE);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

/**
 * Read and parse a journal file, refusing a symlink, a non-regular file, another owner's file or a
 * file that group/others can read. Returns null when the file does not exist.
 */
export async function readPrivateJson(fs: JournalFs, path: string): Promise<unknown> {
  const text = await readPrivateText(fs, path);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConnectorError("journal_unavailable", `${basename(path)} is not valid JSON`, {
      cause: error,
    });
  }
}

/** The checks of `readPrivateJson`, answering the raw text (its bytes are what a checksum covers). */
export async function readPrivateText(fs: JournalFs, path: string): Promise<string | null> {
  let handle: Awaited<ReturnType<JournalFs["open"]>>;
  try {
    handle = await fs.open(path, READ_NO_FOLLOW);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    if (isSymlinkRefusal(error)) throw stateDirInvalid(`${path} is a symlink; refusing to follow it`);
    throw journalUnavailable(`open ${path}`, error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw stateDirInvalid(`${path} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) throw stateDirInvalid(`${path} belongs to another user`);
    if ((stat.mode & 0o077) !== 0) {
      throw stateDirInvalid(
        `${basename(path)} is readable by other users (mode ${(stat.mode & 0o777).toString(8)})`,
      );
    }
    return await handle.readFile("utf8");
  } catch (error) {
    if (isConnectorError(error)) throw error;
    throw journalUnavailable(`read ${basename(path)}`, error);
  } finally {
    await handle.close();
  }
}

/** An open directory whose fsync makes a rename inside it durable. */
export type DirectoryHandle = Pick<Awaited<ReturnType<JournalFs["open"]>>, "sync" | "close">;

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The lowdb adapter of the journal's active segment.
 *
 * Guarantee: when the promise of `write(data)` resolves, a snapshot of `data` taken at or after
 * the moment of that call is on disk (fsynced file, fsynced directory). lowdb hands the adapter
 * its whole, cumulative state, so a snapshot taken later contains this change too.
 *
 * Writes are serialised: one physical write at a time. Calls made while one is in flight join the
 * single next write, whose snapshot is taken when it starts, and all of them resolve only after
 * that write is durable. (steno, lowdb's default writer, also merges queued writes but never
 * fsyncs; here merging is group commit, not loss.)
 *
 * A failed write is sticky: it and every later write reject with `journal_unavailable`, and nothing
 * more touches the disk. The file keeps the last state that was acknowledged; the journal must be
 * reopened. Failing closed is what the gate needs: it closes every lease on `journal_unavailable`.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly #fs: JournalFs;
  readonly #path: string;
  readonly #parse: (value: unknown) => T;
  readonly #serialize: (data: T) => string | Uint8Array;
  #next: (Batch & { data: T }) | null = null;
  #writing = false;
  #failure: ConnectorError | null = null;
  /** Kept open between writes: one fsync per write instead of open + fsync + close. */
  #directory: DirectoryHandle | null = null;

  /**
   * `serialize` runs when a write starts (the snapshot), so it may stamp a checksum of that state.
   * It may answer UTF-8 bytes instead of text, so a caller can reuse what did not change.
   */
  constructor(
    fs: JournalFs,
    path: string,
    parse: (value: unknown) => T,
    serialize: (data: T) => string | Uint8Array = (data) => JSON.stringify(data),
  ) {
    this.#fs = fs;
    this.#path = path;
    this.#parse = parse;
    this.#serialize = serialize;
  }

  /** Release the directory handle. Call once no write is pending. */
  async close(): Promise<void> {
    const directory = this.#directory;
    this.#directory = null;
    await directory?.close();
  }

  async read(): Promise<T | null> {
    const value = await readPrivateJson(this.#fs, this.#path);
    return value === null ? null : this.#parse(value);
  }

  write(data: T): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#next !== null) {
      this.#next.data = data;
      return this.#next.promise;
    }
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.#next = { data, promise, resolve, reject };
    if (!this.#writing) void this.#drain();
    return promise;
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#next !== null) {
      const batch = this.#next;
      this.#next = null;
      try {
        if (this.#failure !== null) throw this.#failure;
        const text = this.#serialize(batch.data);
        this.#directory ??= await this.#fs.open(dirname(this.#path), READ_DIRECTORY);
        await writeFileDurably(this.#fs, this.#path, text, this.#directory);
        batch.resolve();
      } catch (error) {
        this.#failure ??= isConnectorError(error)
          ? error
          : journalUnavailable(`write ${basename(this.#path)}`, error);
        batch.reject(this.#failure);
      }
    }
    this.#writing = false;
  }
}
