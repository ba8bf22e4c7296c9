import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ConnectorError } from "../errors.js";
import { isKeyPart, type KeyPart } from "./key-order.js";

/**
 * Version of the cursor payload format. A cursor with any other `v` is refused: its fields may
 * mean something else.
 */
export const CURSOR_FORMAT_VERSION = 1;

/** The decoded content of a cursor. */
export interface CursorPayload {
  /** Format version, see {@link CURSOR_FORMAT_VERSION}. */
  v: number;
  /** Query signature, `<query digest>:<coverage digest>` (see query-signature.ts). */
  q: string;
  /** Sort key of the last item returned. */
  k: readonly KeyPart[];
  /** Cut: the highest version stamp among the matches of the first page, when the listing has one. */
  c?: string | number;
}

export interface CursorCodec {
  encode(payload: CursorPayload): string;
  /** Verifies and parses a cursor; throws `invalid_cursor` for anything this process did not issue. */
  decode(cursor: string): CursorPayload;
}

export interface CursorCodecOptions {
  /** HMAC key. Defaults to 32 random bytes, i.e. one key per process. */
  key?: Uint8Array;
}

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 4096;

export const MALFORMED_CURSOR_MESSAGE =
  "The cursor is not valid (malformed, from an older version, or issued before the server restarted). " +
  "Repeat the call without a cursor.";

/**
 * Cursors are `<base64url(JSON payload)>.<base64url(HMAC-SHA256(payload))>`.
 *
 * Why a MAC: without it a client could hand-write `k` and `q`. That would not widen access (the ACL
 * filters items before paging, and the signature is recomputed from the real query), but it would
 * turn cursors into an input surface of their own. With the MAC, only cursors this process issued
 * are ever parsed, and a server restart (new key) cleanly invalidates old ones instead of letting
 * them resume a traversal whose first page another process computed. The cost is that cursors do
 * not survive a restart; the caller is told to repeat without a cursor, which is always safe.
 */
export function createCursorCodec(options: CursorCodecOptions = {}): CursorCodec {
  const key = options.key ?? randomBytes(32);
  const mac = (data: string): Buffer =>
    createHmac("sha256", key).update(data).digest().subarray(0, MAC_BYTES);

  return {
    encode(payload) {
      const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
      return `${body}.${mac(body).toString("base64url")}`;
    },
    decode(cursor) {
      if (cursor.length > MAX_CURSOR_LENGTH) throw malformed();
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
      const body = match?.[1];
      const tag = match?.[2];
      if (body === undefined || tag === undefined) throw malformed();
      const given = Buffer.from(tag, "base64url");
      if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(body))) throw malformed();
      return parsePayload(Buffer.from(body, "base64url").toString("utf8"));
    },
  };
}

function parsePayload(json: string): CursorPayload {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    throw malformed(cause);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw malformed();
  const record = value as Record<string, unknown>;
  if (record.v !== CURSOR_FORMAT_VERSION) throw malformed();
  const { q, k, c } = record;
  if (typeof q !== "string" || !Array.isArray(k) || k.length === 0 || !k.every(isKeyPart)) throw malformed();
  if (c !== undefined && typeof c !== "string" && !(typeof c === "number" && Number.isFinite(c))) {
    throw malformed();
  }
  return c === undefined ? { v: CURSOR_FORMAT_VERSION, q, k } : { v: CURSOR_FORMAT_VERSION, q, k, c };
}

function malformed(cause?: unknown): ConnectorError {
  return new ConnectorError("invalid_cursor", MALFORMED_CURSOR_MESSAGE, cause === undefined ? {} : { cause });
}
