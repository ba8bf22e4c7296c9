/**
 * @module The passkey credentials on disk: `<stateDir>/credentials.json`, mode 0600, written
 * atomically. A symlink or a file other users can read is refused rather than followed. The file
 * rules are core's (`durable/private-file.ts`, shared with the OAuth profile's files); what is the
 * gate's own is the credential schema and its error code.
 */
import { readFile } from "node:fs/promises";
import { ConnectorError } from "@t3-connector/core";
import { readPrivateFileText, replacePrivateFile } from "@t3-connector/core/durable";
import { type StoredCredential, storedCredentialSchema } from "@t3-connector/core/passkeys";
import { z } from "zod";

export const CREDENTIALS_FILE = "credentials.json";

const fileSchema = z.array(storedCredentialSchema);

/** Every failure of the credential file is this one typed code (never a passkey verification failure). */
function storeInvalid(message: string, cause?: unknown): ConnectorError {
  return new ConnectorError("credential_store_invalid", message, cause === undefined ? {} : { cause });
}

export async function loadCredentials(path: string): Promise<StoredCredential[]> {
  const text = await readPrivateFileText(path, storeInvalid);
  if (text === null) return [];
  const parsed = fileSchema.safeParse(safeJson(text));
  if (!parsed.success) throw storeInvalid(`${path} is not a list of passkey credentials`);
  return parsed.data;
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
    await replacePrivateFile(path, `${JSON.stringify(credentials, null, 2)}\n`, storeInvalid);
  } catch (error) {
    if (error instanceof ConnectorError) throw error;
    const code = (error as NodeJS.ErrnoException | null)?.code ?? "unknown error";
    throw storeInvalid(`${path} could not be written (${code})`, error);
  }
}

/** For tests and diagnostics: the raw text on disk. */
export function readCredentialsText(path: string): Promise<string> {
  return readFile(path, "utf8");
}
