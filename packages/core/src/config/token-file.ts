import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConnectorError } from "../errors.js";
import { writeFileAtomically } from "./atomic-write.js";

/** Tokens are short; a large file is certainly not one, and is not read into memory. */
const MAX_TOKEN_FILE_BYTES = 16 * 1024;

export interface TokenFileOptions {
  /** Owner the file must have; defaults to the uid of this process. Injected for tests. */
  currentUid?: number;
  /** What the file is, for messages (default "token file"; e.g. "webhook secret file"). */
  what?: string;
  /** The fix when the file does not exist (default: pair the environment first). */
  whenMissing?: string;
}

const invalidAs = (path: string, problem: string, what?: string) => invalid(path, problem, what);

function invalid(path: string, problem: string, what = "token file"): ConnectorError {
  return new ConnectorError("token_file_invalid", `${what} ${path} ${problem}`, { details: { path } });
}

function currentUid(options: TokenFileOptions): number | undefined {
  return options.currentUid ?? process.getuid?.();
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, "0");
}

function checkFileStats(path: string, stats: Stats, uid: number | undefined, what?: string): void {
  const invalid = (p: string, problem: string) => invalidAs(p, problem, what);
  if (stats.isSymbolicLink()) throw invalid(path, "is a symbolic link; point tokenFile at the real file");
  if (!stats.isFile()) throw invalid(path, "is not a regular file");
  if (uid !== undefined && stats.uid !== uid) {
    throw invalid(path, `is owned by uid ${stats.uid}, not by the current user (uid ${uid})`);
  }
  if ((stats.mode & 0o077) !== 0) {
    throw invalid(path, `must have mode 600 (it has ${octal(stats.mode)}); run chmod 600 on it`);
  }
  if (stats.size === 0) throw invalid(path, "is empty; pair the environment again");
  if (stats.size > MAX_TOKEN_FILE_BYTES) throw invalid(path, "is too large to be a token");
}

async function checkDirectory(directory: string, tokenPath: string, what?: string): Promise<void> {
  const invalid = (p: string, problem: string) => invalidAs(p, problem, what);
  const stats = await stat(directory);
  if ((stats.mode & 0o077) !== 0) {
    throw invalid(
      tokenPath,
      `is in directory ${directory} with mode ${octal(stats.mode)}; it must be 700 (run chmod 700 on it)`,
    );
  }
}

/** A token is one printable word; anything else means the file holds something else. */
function isTokenShaped(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

/**
 * Reads a bearer token from a file that only its owner can read. The token itself never appears
 * in an error; only the path and the problem do.
 */
export async function readTokenFile(path: string, options: TokenFileOptions = {}): Promise<string> {
  const uid = currentUid(options);
  let linkStats: Stats;
  try {
    linkStats = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(
      path,
      code === "ENOENT"
        ? `does not exist; ${options.whenMissing ?? "pair the environment first"}`
        : `cannot be read (${code})`,
      options.what,
    );
  }
  checkFileStats(path, linkStats, uid, options.what);
  // Resolved, so a relative path's message names the directory (not ".").
  await checkDirectory(dirname(resolve(path)), path, options.what);
  // O_NOFOLLOW and a second check on the open descriptor close the gap between lstat and read.
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    throw invalid(path, `cannot be opened (${(error as NodeJS.ErrnoException).code})`, options.what);
  }
  try {
    checkFileStats(path, await handle.stat(), uid, options.what);
    const token = (await handle.readFile("utf8")).trim();
    if (token === "") throw invalid(path, "is empty; pair the environment again", options.what);
    if (!isTokenShaped(token))
      throw invalid(
        path,
        "does not hold a single token (it contains spaces or control characters)",
        options.what,
      );
    return token;
  } finally {
    await handle.close();
  }
}

async function ensurePrivateDirectory(directory: string, tokenPath: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const stats = await lstat(directory);
  if (!stats.isDirectory()) throw invalid(tokenPath, `cannot be written: ${directory} is not a directory`);
  if ((stats.mode & 0o077) !== 0) {
    throw invalid(
      tokenPath,
      `cannot be written: directory ${directory} has mode ${octal(stats.mode)}; it must be 700 (run chmod 700 on it)`,
    );
  }
}

/**
 * Stores a token atomically: a private temp file in the same directory (created exclusively,
 * mode 600), flushed, then renamed over the target, so a reader never sees half a token.
 */
export async function writeTokenFile(path: string, token: string): Promise<void> {
  const trimmed = token.trim();
  if (trimmed === "" || !isTokenShaped(trimmed)) {
    throw new ConnectorError("token_file_invalid", "refusing to save: the value received is not a token");
  }
  await ensurePrivateDirectory(dirname(path), path);
  await writeFileAtomically(path, `${trimmed}\n`);
}
