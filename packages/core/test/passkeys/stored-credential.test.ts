import { describe, expect, it } from "vitest";
import {
  credentialDescriptors,
  passkeyPageCspHeader,
  type StoredCredential,
  storedCredentialOf,
  storedCredentialSchema,
  verifiableCredential,
  withCounter,
  withCredential,
} from "../../src/passkeys/index.js";

const KEY = new Uint8Array([1, 2, 3, 250]);

describe("stored passkey credentials", () => {
  it("stores a registration's key as base64url and gives the same bytes back for an assertion", () => {
    const stored = storedCredentialOf({ id: "c1", publicKey: KEY, counter: 4, transports: ["usb"] }, 0);
    expect(stored).toEqual({
      id: "c1",
      publicKey: Buffer.from(KEY).toString("base64url"),
      counter: 4,
      transports: ["usb"],
      createdAt: "1970-01-01T00:00:00.000Z",
    });
    expect(storedCredentialSchema.parse(stored)).toEqual(stored);
    expect(verifiableCredential(stored)).toEqual({
      id: "c1",
      publicKey: KEY,
      counter: 4,
      transports: ["usb"],
    });
  });

  it("lists descriptors without a transports key when none were reported", () => {
    const bare = storedCredentialOf({ id: "c2", publicKey: KEY, counter: 0 }, 0);
    expect(credentialDescriptors([bare])).toEqual([{ id: "c2" }]);
    expect("transports" in verifiableCredential(bare)).toBe(false);
  });

  it("replaces a credential of the same id and moves only a changed counter", () => {
    const first: StoredCredential = storedCredentialOf({ id: "c1", publicKey: KEY, counter: 0 }, 0);
    const other: StoredCredential = storedCredentialOf({ id: "c2", publicKey: KEY, counter: 0 }, 0);
    const again = { ...first, counter: 1 };
    expect(withCredential([first, other], again)).toEqual([other, again]);
    // Synced passkeys never count: 0 after 0 is no change, so nothing is written.
    expect(withCounter([first, other], "c1", 0)).toBeUndefined();
    expect(withCounter([first, other], "c1", 7)).toEqual([{ ...first, counter: 7 }, other]);
  });

  it("writes the page policy header as the browser reads it", () => {
    expect(passkeyPageCspHeader()).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
  });
});
