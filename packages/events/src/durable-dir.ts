import { constants } from "node:fs";
import { errorCode, type JournalFs } from "@t3-connector/core/durable";

/*
 * The two file-system reads the outbox needs beyond core's journal primitives (`writeFileDurably`,
 * `syncDirectory`, `ensurePrivateDirectory`): its files are parsed leniently (a torn or foreign
 * file is skipped by the caller, not a journal error) and its folders listed.
 */

const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

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
