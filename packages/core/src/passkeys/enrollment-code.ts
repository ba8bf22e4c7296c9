/**
 * @module The one-time code that enrolls the first passkey, for the write gate and for `serve
 * --http`'s sign-in alike. Printed on the server's own terminal while no passkey is enrolled: only
 * whoever runs the server sees it, nothing that reaches a page from outside has it. Kept as a
 * hash, usable once.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 16 characters from an unambiguous alphabet (about 78 bits), grouped by 4. */
export function generateEnrollmentCode(): string {
  const alphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789";
  let code = "";
  for (const byte of randomBytes(16)) code += alphabet[byte % alphabet.length];
  return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8, 12)}-${code.slice(12)}`;
}

/** Case and surrounding blanks do not matter: a person types the code from a terminal. */
function digest(code: string): Buffer {
  return createHash("sha256").update(code.trim().toUpperCase(), "utf8").digest();
}

/** The enrollment code, kept only as a hash, usable once. */
export class EnrollmentCode {
  readonly #digest: Buffer;
  #used = false;

  constructor(code: string) {
    this.#digest = digest(code);
  }

  get used(): boolean {
    return this.#used;
  }

  matches(code: string): boolean {
    return !this.#used && timingSafeEqual(digest(code), this.#digest);
  }

  /** Marks the code used; false when it was already used or does not match. */
  consume(code: string): boolean {
    if (!this.matches(code)) return false;
    this.#used = true;
    return true;
  }
}
