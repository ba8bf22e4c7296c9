import { lstat, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import type { ConnectorError } from "../errors.js";
import { writeFileDurably } from "./durable-file.js";
import { DIRECTORY_MODE, errorCode, nodeJournalFs, READ_NO_FOLLOW } from "./fs.js";

/**
 * Small private files a process keeps beside its state (passkey credentials, OAuth sessions and
 * clients): read only when they are regular files other users cannot read, never through a
 * symlink, and replaced whole and durably. Each owner names its own error (`invalid`), so a bad
 * file is refused under the code its callers already expect.
 */
export type InvalidPrivateFile = (message: string, cause?: unknown) => ConnectorError;

/**
 * Refuses a symlink or a non-regular file at `path`, and, with `requirePrivate`, one that group
 * or others may read; answers false when nothing is there.
 */
export async function checkPrivateFile(
  path: string,
  invalid: InvalidPrivateFile,
  requirePrivate = true,
): Promise<boolean> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  if (stats.isSymbolicLink() || !stats.isFile()) throw invalid(`${path} is not a regular file`);
  if (requirePrivate && (stats.mode & 0o077) !== 0) {
    throw invalid(`${path} must not be readable by other users (mode 600)`);
  }
  return true;
}

/** The text of the private file at `path` (checked as above, opened without following a link); null when absent. */
export async function readPrivateFileText(path: string, invalid: InvalidPrivateFile): Promise<string | null> {
  if (!(await checkPrivateFile(path, invalid))) return null;
  const handle = await open(path, READ_NO_FOLLOW);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the file at `path` with `text` (0600, temp file, fsync, rename, directory fsync): a
 * resolved promise means it is on disk. The directory is made 0700 when missing; a symlink in
 * place of the directory or the file is refused, and the file's target is left untouched.
 */
export async function replacePrivateFile(
  path: string,
  text: string,
  invalid: InvalidPrivateFile,
): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: DIRECTORY_MODE });
  const dirStats = await lstat(directory);
  if (dirStats.isSymbolicLink() || !dirStats.isDirectory()) throw invalid(`${directory} is not a directory`);
  await checkPrivateFile(path, invalid, false);
  await writeFileDurably(nodeJournalFs, path, text);
}

/** Runs writes one after another, so two read-modify-writes of one file never interleave. */
export class SerialWrites {
  #chain: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work, work);
    this.#chain = next.catch(() => {});
    return next;
  }
}
