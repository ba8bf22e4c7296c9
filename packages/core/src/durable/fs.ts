import { constants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { ConnectorError } from "../errors.js";

/**
 * The file-system calls the journal makes, injected so that tests can make a disk fail (EIO on
 * fsync, ENOSPC on write) without mocking anything else.
 */
export type JournalFs = Pick<
  typeof nodeFs,
  "open" | "rename" | "link" | "lstat" | "mkdir" | "chmod" | "unlink" | "readdir"
>;

export const nodeJournalFs: JournalFs = nodeFs;

export const DIRECTORY_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Create-only, never through a symlink. */
export const CREATE_EXCLUSIVE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
export const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;
export const READ_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** `open(O_NOFOLLOW)` on a symlink fails with ELOOP on Linux and EMLINK on some BSDs. */
export function isSymlinkRefusal(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ELOOP" || code === "EMLINK";
}

/** fsync a directory so that a rename or unlink inside it survives a power loss. */
export async function syncDirectory(fs: JournalFs, directory: string): Promise<void> {
  const handle = await fs.open(directory, READ_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The failure every journal write turns into: the gate closes every lease on it. */
export function journalUnavailable(what: string, cause: unknown): ConnectorError {
  const reason = errorCode(cause) ?? (cause instanceof Error ? cause.message : "unknown error");
  return new ConnectorError("journal_unavailable", `the journal could not ${what} (${reason})`, { cause });
}

export function stateDirInvalid(message: string, cause?: unknown): ConnectorError {
  return new ConnectorError("state_dir_invalid", message, cause === undefined ? {} : { cause });
}
