/**
 * @module The passkey credentials on disk: `<stateDir>/credentials.json`, mode 0600, written
 * atomically (temp file, fsync, rename, directory fsync). A symlink or a file other users can
 * read is refused rather than followed.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";

export const CREDENTIALS_FILE = "credentials.json";

export const storedCredentialSchema = z.strictObject({
  id: z.string().min(1).max(1024),
  /** COSE public key, base64url. */
  publicKey: z.string().min(1),
  counter: z.number().int().nonnegative(),
  transports: z.array(z.string()).optional(),
  createdAt: z.string(),
  /** The name the person gave it at enrollment (files from before names have none). */
  name: z.string().min(1).max(64).optional(),
});
export type StoredCredential = z.output<typeof storedCredentialSchema>;

const fileSchema = z.array(storedCredentialSchema);

/** Every failure of the credential file is this one typed code (never a passkey verification failure). */
function storeInvalid(message: string, cause?: unknown): ConnectorError {
  return new ConnectorError("credential_store_invalid", message, cause === undefined ? {} : { cause });
}

/** Refuses a symlink or a non-regular file at `path`; answers false when nothing is there. */
async function checkRegularPrivate(path: string, requirePrivate: boolean): Promise<boolean> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  if (stats.isSymbolicLink() || !stats.isFile()) throw storeInvalid(`${path} is not a regular file`);
  if (requirePrivate && (stats.mode & 0o077) !== 0) {
    throw storeInvalid(`${path} must not be readable by other users (mode 600)`);
  }
  return true;
}

export async function loadCredentials(path: string): Promise<StoredCredential[]> {
  if (!(await checkRegularPrivate(path, true))) return [];
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const parsed = fileSchema.safeParse(safeJson(await handle.readFile("utf8")));
    if (!parsed.success) throw storeInvalid(`${path} is not a list of passkey credentials`);
    return parsed.data;
  } finally {
    await handle.close();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Writes the whole list; a resolved promise means the new list is on disk. */
export async function saveCredentials(path: string, credentials: readonly StoredCredential[]): Promise<void> {
  try {
    await writeAtomically(path, credentials);
  } catch (error) {
    if (error instanceof ConnectorError) throw error;
    const code = (error as NodeJS.ErrnoException | null)?.code ?? "unknown error";
    throw storeInvalid(`${path} could not be written (${code})`, error);
  }
}

async function writeAtomically(path: string, credentials: readonly StoredCredential[]): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const dirStats = await lstat(directory);
  if (dirStats.isSymbolicLink() || !dirStats.isDirectory()) {
    throw storeInvalid(`${directory} is not a directory`);
  }
  await checkRegularPrivate(path, false);
  const temp = join(directory, `${CREDENTIALS_FILE}.next`);
  await unlink(temp).catch(() => {});
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`, "utf8");
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

/** For tests and diagnostics: the raw text on disk. */
export function readCredentialsText(path: string): Promise<string> {
  return readFile(path, "utf8");
}
