/**
 * A passkey authenticator in this process: an ES256 key pair that answers the sign-in page's
 * WebAuthn options exactly as a platform authenticator would (attestation `none`, user present
 * and verified). Lets a test sign in through real sockets (a proxy, `serveHttp`) without a
 * browser; the browser tests keep Chromium's virtual authenticator for the page itself.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

/** The few CBOR items an attestation needs (RFC 8949): small ints, byte and text strings, maps. */
function cbor(value: number | string | Uint8Array | Map<number | string, unknown>): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    const out = Buffer.alloc(3);
    out[0] = (major << 5) | 25;
    out.writeUInt16BE(length, 1);
    return out;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string")
    return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const parts = [head(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item as never));
  return Buffer.concat(parts);
}

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** UP (user present) + UV (user verified); AT (attested credential data) at registration. */
const FLAGS_GET = 0x05;
const FLAGS_CREATE = 0x45;

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export class SoftPasskey {
  readonly #privateKey: KeyObject;
  readonly #publicJwk: { x: string; y: string };
  readonly credentialId = randomBytes(16);
  #userHandle = "";
  #counter = 0;

  constructor(readonly origin: string) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.#privateKey = privateKey;
    this.#publicJwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
  }

  get rpId(): string {
    return new URL(this.origin).hostname;
  }

  /** The key as a server stores it after registration (core's `StoredCredential`), counter 0. */
  storedCredential(): { id: string; publicKey: string; counter: number; createdAt: string } {
    return {
      id: b64url(this.credentialId),
      publicKey: b64url(this.#coseKey()),
      counter: 0,
      createdAt: new Date().toISOString(),
    };
  }

  #coseKey(): Buffer {
    return cbor(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.#publicJwk.x, "base64url")],
        [-3, Buffer.from(this.#publicJwk.y, "base64url")],
      ]),
    );
  }

  /** The page's `registrationJson(navigator.credentials.create(...))`. */
  create(options: CreationOptions): Record<string, unknown> {
    this.#userHandle = options.user.id;
    const clientData = this.#clientData("webauthn.create", options.challenge);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.#authDataHead(options.rp.id ?? this.rpId, FLAGS_CREATE),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.#coseKey(),
    ]);
    const attestation = cbor(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map<string, unknown>()],
        ["authData", authData],
      ]),
    );
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(attestation),
        transports: ["internal"],
      },
    };
  }

  /** The page's `assertionJson(navigator.credentials.get(...))`. */
  get(options: RequestOptions): Record<string, unknown> {
    const clientData = this.#clientData("webauthn.get", options.challenge);
    const authData = this.#authDataHead(options.rpId ?? this.rpId, FLAGS_GET);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), this.#privateKey);
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: "public-key",
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: this.#userHandle === "" ? undefined : this.#userHandle,
      },
    };
  }

  #clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  #authDataHead(rpId: string, flags: number): Buffer {
    this.#counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.#counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter]);
  }
}
