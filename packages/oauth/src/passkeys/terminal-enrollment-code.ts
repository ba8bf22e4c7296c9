/**
 * @module `t3-connector oauth enroll`: a fresh one-time code that adds a passkey on another device
 * (a phone) while `serve --http` runs, without a restart (ADR 0050). The terminal writes only the
 * code's hash and its expiry (`enrollment-code.json`, mode 600); the server reads it at the moment
 * a code is entered and deletes it once it is used, so it serves once. A newer code replaces an
 * older one. Only someone at the terminal sees the code; nothing that reaches the page has it.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "@t3-connector/core";
import { generateEnrollmentCode } from "@t3-connector/core/passkeys";
import { z } from "zod";
import { ensureStateDir, readPrivateJson, writePrivateJson } from "../state/private-json.js";
import { sameSecret, secretHash } from "../tokens/secrets.js";

export const ENROLLMENT_CODE_FILE = "enrollment-code.json";
/** Time to pick up the phone, open the page and type the code. */
export const TERMINAL_CODE_MS = 10 * 60_000;

const fileSchema = z.strictObject({ version: z.literal(1), hash: z.string(), expiresAt: z.number() });

/** Writes a fresh code's hash; answers the code (to print) and when it expires. */
export async function issueTerminalEnrollmentCode(
  stateDir: string,
  clock: Clock,
): Promise<{ code: string; expiresAt: string }> {
  await ensureStateDir(stateDir);
  const code = generateEnrollmentCode();
  const expiresAt = clock.now() + TERMINAL_CODE_MS;
  await writePrivateJson(join(stateDir, ENROLLMENT_CODE_FILE), {
    version: 1,
    hash: secretHash(code),
    expiresAt,
  });
  return { code, expiresAt: new Date(expiresAt).toISOString() };
}

/** Whether `code` is the terminal's live code (read fresh from the state directory). */
export async function matchesTerminalCode(stateDir: string, code: string, clock: Clock): Promise<boolean> {
  const stored = await readPrivateJson(join(stateDir, ENROLLMENT_CODE_FILE), fileSchema.nullable(), null);
  if (stored === null || clock.now() >= stored.expiresAt) return false;
  return sameSecret(secretHash(code.trim().toUpperCase()), stored.hash);
}

/** Spends the terminal's code: removed, so it serves once. */
export async function consumeTerminalCode(stateDir: string): Promise<void> {
  await rm(join(stateDir, ENROLLMENT_CODE_FILE), { force: true });
}
