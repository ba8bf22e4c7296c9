/**
 * A passkey credential as both passkey pages keep it (the write gate's approval page and the
 * OAuth sign-in page, each with its own file and relying party), and the conversions between it
 * and what a WebAuthn library takes and gives. No WebAuthn library here: the shapes are plain data,
 * so core stays free of it; each page runs its own ceremonies with its own origin and RP ID.
 */
import { z } from "zod";

export const storedCredentialSchema = z.strictObject({
  id: z.string().min(1).max(1024),
  /** COSE public key, base64url. */
  publicKey: z.string().min(1),
  counter: z.number().int().nonnegative(),
  transports: z.array(z.string()).optional(),
  createdAt: z.string(),
  /** The name the person gave it at enrollment (the gate's; files from before names have none). */
  name: z.string().min(1).max(64).optional(),
});
export type StoredCredential = z.output<typeof storedCredentialSchema>;

/** A verified registration's new credential, as the library reports it. */
export interface RegisteredCredential {
  readonly id: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports?: readonly string[];
}

/** The record to store for a registration verified at `createdAtMs`. */
export function storedCredentialOf(credential: RegisteredCredential, createdAtMs: number): StoredCredential {
  return {
    id: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    ...(credential.transports === undefined ? {} : { transports: [...credential.transports] }),
    createdAt: new Date(createdAtMs).toISOString(),
  };
}

/** The list with `credential` added, replacing one of the same id. */
export function withCredential(
  credentials: readonly StoredCredential[],
  credential: StoredCredential,
): StoredCredential[] {
  return [...credentials.filter((existing) => existing.id !== credential.id), credential];
}

/** `{ id, transports? }` for each credential: the allow and exclude lists of the ceremonies. */
export function credentialDescriptors<T extends string>(
  credentials: readonly StoredCredential[],
): { id: string; transports?: T[] }[] {
  return credentials.map((credential) => ({
    id: credential.id,
    ...(credential.transports === undefined ? {} : { transports: credential.transports as T[] }),
  }));
}

/** The stored credential as an assertion is verified against (the public key decoded). */
export function verifiableCredential<T extends string>(
  credential: StoredCredential,
): { id: string; publicKey: Uint8Array<ArrayBuffer>; counter: number; transports?: T[] } {
  return {
    id: credential.id,
    publicKey: new Uint8Array(Buffer.from(credential.publicKey, "base64url")),
    counter: credential.counter,
    ...(credential.transports === undefined ? {} : { transports: credential.transports as T[] }),
  };
}

/** The list with `id`'s counter moved to `counter`, or undefined when it did not change. */
export function withCounter(
  credentials: readonly StoredCredential[],
  id: string,
  counter: number,
): StoredCredential[] | undefined {
  const current = credentials.find((candidate) => candidate.id === id);
  if (current === undefined || current.counter === counter) return undefined;
  return credentials.map((candidate) => (candidate.id === id ? { ...candidate, counter } : candidate));
}
