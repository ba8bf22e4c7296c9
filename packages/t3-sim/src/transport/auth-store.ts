import { randomBytes, randomInt } from "node:crypto";
import type { SimClock } from "../clock.js";
import { STANDARD_CLIENT_SCOPES } from "./scopes.js";

/**
 * Tokens, WebSocket tickets and pairing codes of one environment. Every expiry is read from the
 * environment's SimClock, so tests move time instead of sleeping.
 */

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const WEBSOCKET_TICKET_TTL_MS = 5 * 60 * 1000;
export const PAIRING_CODE_TTL_MS = 5 * 60 * 1000;
const PAIRING_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const PAIRING_CODE_LENGTH = 12;

export interface Session {
  readonly sessionId: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
  readonly method: "bearer-access-token";
}

export interface PairingGrant {
  readonly id: string;
  readonly credential: string;
  readonly scopes: readonly string[];
  readonly label?: string;
  readonly expiresAt: number;
}

interface Ticket {
  readonly session: Session;
  readonly expiresAt: number;
}

export class AuthStore {
  readonly #clock: SimClock;
  readonly #sessions = new Map<string, Session>();
  readonly #tickets = new Map<string, Ticket>();
  readonly #pairings = new Map<string, PairingGrant>();
  #nextSession = 1;

  constructor(clock: SimClock) {
    this.#clock = clock;
  }

  issueToken(options: { scopes: readonly string[]; ttlMs?: number }): string {
    const token = `t3sim_${randomBytes(24).toString("base64url")}`;
    this.#sessions.set(token, {
      sessionId: `session-${this.#nextSession++}`,
      scopes: [...options.scopes],
      expiresAt: this.#clock.now() + (options.ttlMs ?? SESSION_TTL_MS),
      method: "bearer-access-token",
    });
    return token;
  }

  /** The session of a bearer token; undefined when unknown or expired. */
  session(token: string): Session | undefined {
    const session = this.#sessions.get(token);
    return session && this.isLive(session) ? session : undefined;
  }

  isLive(session: Session): boolean {
    return this.#clock.now() < session.expiresAt;
  }

  /** Tickets stay valid for their whole TTL and may be reused (fixture 13d). */
  issueTicket(session: Session): { ticket: string; expiresAt: number } {
    const ticket = `wst_${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.#clock.now() + WEBSOCKET_TICKET_TTL_MS;
    this.#tickets.set(ticket, { session, expiresAt });
    return { ticket, expiresAt };
  }

  ticketSession(ticket: string): Session | undefined {
    const entry = this.#tickets.get(ticket);
    if (!entry) return undefined;
    if (this.#clock.now() >= entry.expiresAt) {
      this.#tickets.delete(ticket);
      return undefined;
    }
    return this.isLive(entry.session) ? entry.session : undefined;
  }

  createPairingCode(options: { scopes?: readonly string[]; label?: string } = {}): PairingGrant {
    let credential = "";
    for (let i = 0; i < PAIRING_CODE_LENGTH; i++)
      credential += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
    const grant: PairingGrant = {
      id: `pairing-${randomBytes(8).toString("hex")}`,
      credential,
      scopes: [...(options.scopes ?? STANDARD_CLIENT_SCOPES)],
      ...(options.label === undefined ? {} : { label: options.label }),
      expiresAt: this.#clock.now() + PAIRING_CODE_TTL_MS,
    };
    this.#pairings.set(credential, grant);
    return grant;
  }

  /** A live, unconsumed pairing grant (not consumed by looking). */
  pairing(credential: string): PairingGrant | undefined {
    const grant = this.#pairings.get(credential);
    if (!grant) return undefined;
    if (this.#clock.now() >= grant.expiresAt) {
      this.#pairings.delete(credential);
      return undefined;
    }
    return grant;
  }

  /** Single use: once exchanged, the code is gone (fixture 06). */
  consumePairing(credential: string): void {
    this.#pairings.delete(credential);
  }
}
