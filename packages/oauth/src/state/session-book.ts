/**
 * @module The session authority. A session starts at consent and ends at the first of: its idle
 * window passing without a `tools/call`, its maximum age, a refresh token presented twice, a
 * `/revoke`, or a revocation from the terminal. Access tokens live in memory only (60 s; a
 * restart makes clients refresh); sessions with the hash of their refresh token live on disk.
 */

import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { SerialWrites } from "@t3-connector/core/durable";
import type { OAuthSettings } from "../settings/index.js";
import { newSecret, SECRET_PREFIX, secretHash } from "../tokens/secrets.js";
import { readPrivateJson, writePrivateJson } from "./private-json.js";
import {
  isRevoked,
  NO_REVOCATIONS,
  type Revocations,
  revocationsSchema,
  type SessionRecord,
  sessionFiles,
  sessionsFileSchema,
} from "./session-files.js";

/** How many rotated-out refresh tokens a session remembers (each one's reuse ends it). */
const RETIRED_REFRESH_KEPT = 32;
/** Live access tokens kept at most; the oldest are dropped first (they expire within a minute). */
const MAX_ACCESS_TOKENS = 10_000;

export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds. */
  readonly expiresIn: number;
  readonly scope: readonly string[];
}

export interface VerifiedAccess {
  readonly sessionId: string;
  readonly clientId: string;
  /** The client's name as the person saw it on the consent page. */
  readonly clientName: string;
  /** Wall-clock ms of the consent that started the session. */
  readonly sessionStartedAt: number;
  readonly scope: readonly string[];
  readonly resource: string;
  /** Wall-clock ms. */
  readonly expiresAt: number;
}

interface AccessRecord {
  readonly sessionId: string;
  readonly expiresAt: number;
}

export type SessionEndReason = "revoked" | "refresh_reused" | "code_reused" | "idle" | "max_age" | "terminal";

export class SessionBook {
  readonly #settings: OAuthSettings;
  readonly #clock: Clock;
  readonly #files: ReturnType<typeof sessionFiles>;
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #access = new Map<string, AccessRecord>();
  readonly #writes = new SerialWrites();
  readonly #log: (line: string) => void;
  readonly #endListeners: Array<(sessionId: string, reason: SessionEndReason) => void> = [];
  #revocations: Revocations = NO_REVOCATIONS;
  #revocationsStamp = "";
  #damagedStamp = "";
  /** A write for a `tools/call` is queued and not yet started: it will carry any later one too. */
  #activityWriteQueued = false;

  private constructor(settings: OAuthSettings, clock: Clock, log: (line: string) => void) {
    this.#settings = settings;
    this.#clock = clock;
    this.#files = sessionFiles(settings.stateDir);
    this.#log = log;
  }

  static async open(
    settings: OAuthSettings,
    clock: Clock,
    log: (line: string) => void,
  ): Promise<SessionBook> {
    const book = new SessionBook(settings, clock, log);
    const stored = await readPrivateJson(book.#files.sessions, sessionsFileSchema, {
      version: 1,
      sessions: [],
    });
    for (const session of stored.sessions) book.#sessions.set(session.id, session);
    await book.syncRevocations();
    return book;
  }

  /** The live sessions (after applying the terminal's revocations and the time limits). */
  async list(): Promise<SessionRecord[]> {
    await this.syncRevocations();
    return [...this.#sessions.values()].filter((session) => this.#endReason(session) === undefined);
  }

  /** A new session at consent, with its first tokens. */
  async create(input: {
    clientId: string;
    clientName: string;
    scope: readonly string[];
    resource: string;
    credentialId: string;
  }): Promise<{ session: SessionRecord; tokens: IssuedTokens }> {
    const now = this.#clock.now();
    const refreshToken = newSecret(SECRET_PREFIX.refresh);
    const session: SessionRecord = {
      id: `s_${randomBytes(9).toString("base64url")}`,
      clientId: input.clientId,
      clientName: input.clientName,
      scope: [...input.scope],
      resource: input.resource,
      credentialId: input.credentialId,
      createdAt: now,
      lastActivityAt: now,
      refreshHash: secretHash(refreshToken),
      refreshExpiresAt: now + this.#settings.lifetimes.refreshTokenMs,
      retiredRefreshHashes: [],
    };
    this.#sessions.set(session.id, session);
    await this.#persist();
    this.#log(`oauth: session ${session.id} started for ${JSON.stringify(session.clientName)}`);
    return { session, tokens: this.#issueAccess(session, refreshToken) };
  }

  /**
   * Rotates a refresh token. A retired one ends its session (someone holds a copy); an unknown,
   * expired or foreign one is `invalid_grant`. Answers the new pair.
   */
  async refresh(refreshToken: string, clientId: string): Promise<IssuedTokens> {
    await this.syncRevocations();
    const hash = secretHash(refreshToken);
    for (const session of this.#sessions.values()) {
      if (session.retiredRefreshHashes.includes(hash)) {
        await this.end(session.id, "refresh_reused");
        throw invalidGrant("the refresh token was already used; the session has ended");
      }
      if (session.refreshHash !== hash) continue;
      if (session.clientId !== clientId) throw invalidGrant("the refresh token belongs to another client");
      const ended = this.#endReason(session);
      if (ended !== undefined) {
        await this.end(session.id, ended);
        throw invalidGrant("the session has ended; sign in again");
      }
      if (this.#clock.now() >= session.refreshExpiresAt) throw invalidGrant("the refresh token expired");
      const next = newSecret(SECRET_PREFIX.refresh);
      const rotated: SessionRecord = {
        ...session,
        refreshHash: secretHash(next),
        refreshExpiresAt: this.#clock.now() + this.#settings.lifetimes.refreshTokenMs,
        retiredRefreshHashes: [session.refreshHash, ...session.retiredRefreshHashes].slice(
          0,
          RETIRED_REFRESH_KEPT,
        ),
      };
      this.#sessions.set(session.id, rotated);
      // Access tokens of the previous generation stay valid until they expire (at most a minute).
      await this.#persist();
      return this.#issueAccess(rotated, next);
    }
    // Most often the session was revoked from the terminal (its record is gone with it).
    throw invalidGrant(
      "this refresh token belongs to no live session: the session was revoked or ended, or the token was never issued here; sign in again (ChatGPT: Reconnect; Claude: Disconnect, then Connect)",
    );
  }

  /** The session behind an access token, or undefined when it is unknown, expired or ended. */
  async verifyAccess(accessToken: string): Promise<VerifiedAccess | undefined> {
    await this.syncRevocations();
    const hash = secretHash(accessToken);
    const record = this.#access.get(hash);
    if (record === undefined) return undefined;
    if (this.#clock.now() >= record.expiresAt) {
      this.#access.delete(hash);
      return undefined;
    }
    const session = this.#sessions.get(record.sessionId);
    if (session === undefined) return undefined;
    const ended = this.#endReason(session);
    if (ended !== undefined) {
      await this.end(session.id, ended);
      return undefined;
    }
    return {
      sessionId: session.id,
      clientId: session.clientId,
      clientName: session.clientName,
      sessionStartedAt: session.createdAt,
      scope: session.scope,
      resource: session.resource,
      expiresAt: record.expiresAt,
    };
  }

  /**
   * A `tools/call` arrived: the idle window starts again, and `oauth sessions` shows it. Calls
   * that arrive while a write is queued ride on that write, so a burst costs one or two writes.
   */
  async touch(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.set(sessionId, { ...session, lastActivityAt: this.#clock.now() });
    if (this.#activityWriteQueued) return;
    this.#activityWriteQueued = true;
    await this.#writes.run(() => {
      this.#activityWriteQueued = false;
      return writePrivateJson(this.#files.sessions, { version: 1, sessions: [...this.#sessions.values()] });
    });
  }

  /** Ends a session by any of its tokens (RFC 7009): true when one was found. */
  async revokeByToken(token: string): Promise<boolean> {
    const hash = secretHash(token);
    const access = this.#access.get(hash);
    let sessionId = access?.sessionId;
    if (sessionId === undefined) {
      for (const session of this.#sessions.values()) {
        if (session.refreshHash === hash || session.retiredRefreshHashes.includes(hash))
          sessionId = session.id;
      }
    }
    if (sessionId === undefined) return false;
    await this.end(sessionId, "revoked");
    return true;
  }

  /** Ends a session: its access tokens stop working at once, its refresh token is forgotten. */
  async end(sessionId: string, reason: SessionEndReason): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.delete(sessionId);
    for (const [hash, record] of this.#access) if (record.sessionId === sessionId) this.#access.delete(hash);
    await this.#persist();
    this.#log(`oauth: session ${sessionId} ended (${reason})`);
    for (const listener of this.#endListeners) listener(sessionId, reason);
  }

  /** Called after each session ends, whatever ended it (what serve holds for it ends too). */
  onEnded(listener: (sessionId: string, reason: SessionEndReason) => void): void {
    this.#endListeners.push(listener);
  }

  /**
   * Applies `revocations.json` when it changed since last read (one `stat` per call otherwise):
   * what the terminal revoked ends before the next token is honoured.
   */
  async syncRevocations(): Promise<void> {
    let stamp = "absent";
    try {
      const stats = await stat(this.#files.revocations);
      stamp = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (stamp !== this.#revocationsStamp) {
      try {
        this.#revocations = await readPrivateJson(this.#files.revocations, revocationsSchema, NO_REVOCATIONS);
      } catch (error) {
        // Fails closed (every token check refuses) until the file is repaired; said once per change.
        if (stamp !== this.#damagedStamp)
          this.#log(`oauth: refusing every token until this is fixed: ${String(error)}`);
        this.#damagedStamp = stamp;
        throw error;
      }
      this.#revocationsStamp = stamp;
    }
    for (const session of [...this.#sessions.values()]) {
      if (isRevoked(this.#revocations, session)) await this.end(session.id, "terminal");
    }
  }

  /** Whether something issued at `issuedAt` (wall ms) was cut by a `revoke-all` since. */
  revokedSince(issuedAt: number): boolean {
    return this.#revocations.revokedBefore !== null && issuedAt <= this.#revocations.revokedBefore;
  }

  #endReason(session: SessionRecord): SessionEndReason | undefined {
    const now = this.#clock.now();
    if (isRevoked(this.#revocations, session)) return "terminal";
    if (now - session.lastActivityAt >= this.#settings.idleMs) return "idle";
    if (this.#settings.maxAgeMs !== undefined && now - session.createdAt >= this.#settings.maxAgeMs)
      return "max_age";
    return undefined;
  }

  /** An access token cut to the session's idle and max-age deadlines. */
  #issueAccess(session: SessionRecord, refreshToken: string): IssuedTokens {
    const now = this.#clock.now();
    const deadlines = [
      now + this.#settings.lifetimes.accessTokenMs,
      session.lastActivityAt + this.#settings.idleMs,
      ...(this.#settings.maxAgeMs === undefined ? [] : [session.createdAt + this.#settings.maxAgeMs]),
    ];
    const expiresAt = Math.min(...deadlines);
    const accessToken = newSecret(SECRET_PREFIX.access);
    this.#pruneAccess(now);
    this.#access.set(secretHash(accessToken), { sessionId: session.id, expiresAt });
    return {
      accessToken,
      refreshToken,
      expiresIn: Math.max(1, Math.floor((expiresAt - now) / 1000)),
      scope: session.scope,
    };
  }

  #pruneAccess(now: number): void {
    for (const [hash, record] of this.#access) if (now >= record.expiresAt) this.#access.delete(hash);
    while (this.#access.size >= MAX_ACCESS_TOKENS) {
      const oldest = this.#access.keys().next().value;
      if (oldest === undefined) break;
      this.#access.delete(oldest);
    }
  }

  #persist(): Promise<void> {
    const snapshot = { version: 1, sessions: [...this.#sessions.values()] };
    return this.#writes.run(() => writePrivateJson(this.#files.sessions, snapshot));
  }
}

function invalidGrant(message: string): ConnectorError {
  return new ConnectorError("invalid_grant", message);
}
