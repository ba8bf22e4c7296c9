/**
 * @module The profile's durable files: JSON in a private directory (0700), each file 0600, written
 * atomically (temp file, fsync, rename, directory fsync), never through a symlink.
 */
import { constants } from "node:fs";
import { lstat, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { ensurePrivateDirectory, nodeJournalFs } from "@t3-connector/core/durable";
import type { z } from "zod";

export function ensureStateDir(path: string): Promise<void> {
  return ensurePrivateDirectory(nodeJournalFs, path, "oauth state directory");
}

/** The parsed file, or `fallback` when there is none. A damaged or open file is refused. */
export async function readPrivateJson<T>(path: string, schema: z.ZodType<T>, fallback: T): Promise<T> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw error;
  }
  if (stats.isSymbolicLink() || !stats.isFile()) throw invalid(`${path} is not a regular file`);
  if ((stats.mode & 0o077) !== 0) throw invalid(`${path} must not be readable by other users (mode 600)`);
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  let text: string;
  try {
    text = await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(`${path} is not JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalid(`${path} does not hold what this version writes there`);
  return parsed.data;
}

/** Replaces the file with `value`; a resolved promise means it is on disk. */
export async function writePrivateJson(path: string, value: unknown): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.next-${process.pid}`);
  await unlink(temp).catch(() => {});
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  const dir = await open(directory, constants.O_RDONLY);
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

function invalid(message: string): ConnectorError {
  return new ConnectorError("state_dir_invalid", message);
}

/** Runs writes one after another, so two never interleave on one file. */
export class SerialWrites {
  #chain: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work, work);
    this.#chain = next.catch(() => {});
    return next;
  }
}
