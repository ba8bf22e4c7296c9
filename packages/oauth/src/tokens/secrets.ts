/**
 * @module Opaque secrets (codes, tokens, transaction cookies) and the one-way form we keep of them.
 * 256 random bits each, so a plain SHA-256 is enough to store them: there is nothing to guess.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh secret with a prefix naming its kind (so a leaked one is recognisable in a scan). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/** The stored form of a secret: SHA-256, base64url. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

/** Compares two hashes (or any two strings) in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const left = createHash("sha256").update(a, "utf8").digest();
  const right = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(left, right);
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) must equal the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = createHash("sha256").update(verifier, "ascii").digest("base64url");
  return sameSecret(computed, challenge);
}

export const SECRET_PREFIX = {
  code: "t3c_code",
  access: "t3c_at",
  refresh: "t3c_rt",
  transaction: "t3c_tx",
} as const;
