/**
 * @module A sign-in between `/authorize` and the consent click (at most 10 minutes). Until a
 * passkey signs in, the server keeps nothing for it: the authorization request is sealed into the
 * transaction's cookie (AES-256-GCM under a key that lives as long as the process), so a stranger
 * can open as many sign-ins as it likes without holding anything the owner's sign-in needs. Only
 * a sign-in a passkey verified is remembered (which passkey, until its deadline): a table only the
 * owner can add to (ADR 0043).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Clock } from "@t3-connector/core";
import { z } from "zod";
import type { OAuthClient } from "../clients/client-record.js";
import { SECRET_PREFIX } from "../tokens/secrets.js";

/** What the rest of the sign-in needs to know of its client. */
export type SignInClient = Pick<OAuthClient, "clientId" | "clientName" | "kind">;

export interface AuthorizationRequest {
  readonly client: SignInClient;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly scope: readonly string[];
  readonly resource: string;
}

export interface Transaction {
  readonly id: string;
  readonly request: AuthorizationRequest;
  /** Wall ms: a `revoke-all` after it cancels it. */
  readonly createdAt: number;
  readonly deadline: number;
  /** The passkey that signed in for this transaction, once one did. */
  readonly signedInWith: string | undefined;
}

/** Browsers keep cookies up to about 4 KiB with their name and attributes. */
const MAX_COOKIE_CHARS = 3_800;
/** Signed-in transactions remembered at once (only a passkey holder adds one). */
const MAX_SIGNED_IN = 64;

const sealedSchema = z.strictObject({
  id: z.string(),
  request: z.strictObject({
    client: z.strictObject({ clientId: z.string(), clientName: z.string(), kind: z.enum(["dcr", "cimd"]) }),
    redirectUri: z.string(),
    state: z.string().optional(),
    codeChallenge: z.string(),
    scope: z.array(z.string()),
    resource: z.string(),
  }),
  createdAt: z.number(),
  deadline: z.number(),
});

export class Transactions {
  readonly #key = randomBytes(32);
  readonly #signedIn = new Map<string, { credentialId: string; deadline: number }>();

  constructor(private readonly options: { clock: Clock; ttlMs: number }) {}

  /**
   * A new transaction and its cookie (the sealed request). Undefined when the request is too
   * long to fit in a cookie (a client's `state` or redirect URI of kilobytes).
   */
  open(request: AuthorizationRequest): { transaction: Transaction; cookie: string } | undefined {
    const now = this.options.clock.now();
    const sealed = {
      id: randomBytes(16).toString("base64url"),
      request: {
        client: {
          clientId: request.client.clientId,
          clientName: request.client.clientName,
          kind: request.client.kind,
        },
        redirectUri: request.redirectUri,
        ...(request.state === undefined ? {} : { state: request.state }),
        codeChallenge: request.codeChallenge,
        scope: [...request.scope],
        resource: request.resource,
      },
      createdAt: now,
      deadline: now + this.options.ttlMs,
    };
    const cookie = this.#seal(JSON.stringify(sealed));
    if (cookie.length > MAX_COOKIE_CHARS) return undefined;
    return { transaction: transactionOf(sealed, undefined), cookie };
  }

  /** The live transaction `id` whose cookie this is, or undefined (expired, foreign, forged). */
  get(id: string, cookie: string | undefined): Transaction | undefined {
    if (cookie === undefined) return undefined;
    const parsed = sealedSchema.safeParse(this.#unseal(cookie));
    if (!parsed.success || parsed.data.id !== id) return undefined;
    const now = this.options.clock.now();
    if (now >= parsed.data.deadline) return undefined;
    const signedIn = this.#signedIn.get(id);
    return transactionOf(parsed.data, signedIn?.credentialId);
  }

  /** A passkey verified for this transaction: consent may issue a code for it now. */
  markSignedIn(transaction: Transaction, credentialId: string): void {
    const now = this.options.clock.now();
    for (const [id, entry] of this.#signedIn) if (now >= entry.deadline) this.#signedIn.delete(id);
    while (this.#signedIn.size >= MAX_SIGNED_IN) {
      const oldest = this.#signedIn.keys().next().value;
      if (oldest === undefined) break;
      this.#signedIn.delete(oldest);
    }
    this.#signedIn.set(transaction.id, { credentialId, deadline: transaction.deadline });
  }

  /** Consent was given or refused: the sign-in must be made again for another code. */
  close(id: string): void {
    this.#signedIn.delete(id);
  }

  #seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    return `${SECRET_PREFIX.transaction}_${sealed}`;
  }

  #unseal(cookie: string): unknown {
    const prefix = `${SECRET_PREFIX.transaction}_`;
    if (!cookie.startsWith(prefix)) return undefined;
    const bytes = Buffer.from(cookie.slice(prefix.length), "base64url");
    if (bytes.length < 29) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
      return JSON.parse(plain.toString("utf8")) as unknown;
    } catch {
      return undefined;
    }
  }
}

function transactionOf(sealed: z.output<typeof sealedSchema>, signedInWith: string | undefined): Transaction {
  const { request } = sealed;
  return {
    id: sealed.id,
    request: {
      client: request.client,
      redirectUri: request.redirectUri,
      state: request.state,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      resource: request.resource,
    },
    createdAt: sealed.createdAt,
    deadline: sealed.deadline,
    signedInWith,
  };
}
