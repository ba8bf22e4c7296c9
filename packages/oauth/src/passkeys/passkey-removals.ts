/**
 * @module Listing and removing the sign-in passkeys from the terminal (ADR 0050):
 * `t3-connector oauth passkeys` and `t3-connector oauth remove-passkey <id>`. As for revocations,
 * the terminal never writes the server's file: it writes `passkey-removals.json`, which the server
 * (and the gate, for approval from afar) reads before every ceremony, so a removal counts at once,
 * running or not. The last passkey is kept unless `force`: without one, signing in and approving
 * from afar need a new enrollment code.
 */
import { join } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import { storedCredentialSchema } from "@t3-connector/core/passkeys";
import { z } from "zod";
import { ensureStateDir, readPrivateJson, writePrivateJson } from "../state/private-json.js";
import { PASSKEYS_FILE } from "../state/session-files.js";

export const PASSKEY_REMOVALS_FILE = "passkey-removals.json";

export const passkeysFileSchema = z.strictObject({
  version: z.literal(1),
  credentials: z.array(storedCredentialSchema),
});
const removalsSchema = z.strictObject({ version: z.literal(1), removedIds: z.array(z.string()) });

/** A passkey as the terminal lists it: no key material. */
export interface PasskeyListing {
  readonly id: string;
  readonly name: string | null;
  readonly createdAt: string;
  readonly transports: readonly string[];
}

/** The ids removed from the terminal (empty when none). */
export async function removedPasskeyIds(stateDir: string): Promise<ReadonlySet<string>> {
  const removals = await readPrivateJson(join(stateDir, PASSKEY_REMOVALS_FILE), removalsSchema, {
    version: 1,
    removedIds: [],
  });
  return new Set(removals.removedIds);
}

export async function listPasskeys(stateDir: string): Promise<PasskeyListing[]> {
  const stored = await readPrivateJson(join(stateDir, PASSKEYS_FILE), passkeysFileSchema, {
    version: 1,
    credentials: [],
  });
  const removed = await removedPasskeyIds(stateDir);
  return stored.credentials
    .filter((credential) => !removed.has(credential.id))
    .map((credential) => ({
      id: credential.id,
      name: credential.name ?? null,
      createdAt: credential.createdAt,
      transports: credential.transports ?? [],
    }));
}

/** Removes one passkey; refuses an unknown id, and the last one unless `force`. Answers how many remain. */
export async function removePasskey(
  stateDir: string,
  id: string,
  options: { force?: boolean } = {},
): Promise<number> {
  const live = await listPasskeys(stateDir);
  if (!live.some((passkey) => passkey.id === id)) {
    throw new ConnectorError("credential_unknown", `no passkey ${id} (see t3-connector oauth passkeys)`);
  }
  if (live.length === 1 && options.force !== true) {
    throw new ConnectorError(
      "invalid_request",
      "this is the last passkey: without it nobody can sign in or approve from afar until a new one is " +
        "enrolled with a code (t3-connector oauth enroll); add --force to remove it anyway",
    );
  }
  await ensureStateDir(stateDir);
  const removed = await removedPasskeyIds(stateDir);
  await writePrivateJson(join(stateDir, PASSKEY_REMOVALS_FILE), {
    version: 1,
    removedIds: [...removed, id],
  });
  return live.length - 1;
}
