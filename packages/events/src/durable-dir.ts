import { constants } from "node:fs";
import { ConnectorError } from "@t3-connector/core";
import type { JournalFs } from "@t3-connector/core/journal";

/*
 * The few file-system steps the outbox needs that core's journal keeps private (its
 * `syncDirectory`, `ensurePrivateDirectory` and `readPrivateJson` are not exported; an export is
 * requested instead of copying them). The temp + fsync + rename + fsync-directory write itself is
 * core's exported `writeFileDurably`.
 */

const READ_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function stateDirInvalid(message: string): ConnectorError {
  return new ConnectorError("state_dir_invalid", message);
}

/** fsync a directory, so a rename or unlink inside it survives a crash. */
export async function syncDirectory(fs: JournalFs, directory: string): Promise<void> {
  const handle = await fs.open(directory, READ_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A 0700 directory of ours: created when missing; a symlink, another owner or open modes are refused. */
export async function ensurePrivateDirectory(fs: JournalFs, path: string): Promise<void> {
  const created = (await fs.mkdir(path, { recursive: true, mode: 0o700 })) !== undefined;
  if (created) await fs.chmod(path, 0o700);
  const stat = await fs.lstat(path);
  if (stat.isSymbolicLink()) throw stateDirInvalid(`${path} is a symlink; refusing to follow it`);
  if (!stat.isDirectory()) throw stateDirInvalid(`${path} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw stateDirInvalid(`${path} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) {
    throw stateDirInvalid(
      `${path} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); it must be 0700`,
    );
  }
}

/** Parses a file of ours, never through a symlink; null when it does not exist (or vanished). */
export async function readJsonFile(fs: JournalFs, path: string): Promise<unknown> {
  let handle: Awaited<ReturnType<JournalFs["open"]>>;
  try {
    handle = await fs.open(path, READ_NO_FOLLOW);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  try {
    return JSON.parse(await handle.readFile("utf8")) as unknown;
  } finally {
    await handle.close();
  }
}

/** File names of a directory (empty when it does not exist). */
export async function listDirectory(fs: JournalFs, path: string): Promise<string[]> {
  try {
    return (await fs.readdir(path)) as string[];
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
}
