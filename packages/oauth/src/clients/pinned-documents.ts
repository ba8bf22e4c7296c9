/**
 * @module Copies of vendor client metadata documents shipped with this release, for clients whose
 * live document is known to be unreachable from some servers: claude.ai answers fetches from
 * datacenter addresses with a 403 challenge page, has answered HTML instead of JSON, and its
 * `claude.com` twin answered 404 (docs/oauth.md). A pinned copy is used only when the live fetch
 * fails or answers anything but a valid document; a live document that passes always wins.
 *
 * Each copy is the document as its vendor served it on the date given, field for field (a test
 * checks each names its own URL and its vendor's callbacks). ChatGPT's document is not pinned: it
 * carries signing keys that its vendor rotates, and a stale key is worse than a clear refusal.
 */
import { CLAUDE_CLIENT_ID_URL, CLAUDE_CODE_CLIENT_ID_URL } from "../settings/index.js";

export interface PinnedDocument {
  /** When the vendor served this copy (ISO date). */
  readonly servedOn: string;
  readonly document: Readonly<Record<string, unknown>>;
}

export const PINNED_DOCUMENTS: ReadonlyMap<string, PinnedDocument> = new Map([
  [
    CLAUDE_CLIENT_ID_URL,
    {
      servedOn: "2026-09-29",
      document: {
        client_id: CLAUDE_CLIENT_ID_URL,
        client_name: "Claude",
        client_uri: "https://claude.ai",
        redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
        grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    },
  ],
  [
    CLAUDE_CODE_CLIENT_ID_URL,
    {
      servedOn: "2026-10-01",
      document: {
        client_id: CLAUDE_CODE_CLIENT_ID_URL,
        client_name: "Claude Code",
        client_uri: "https://claude.ai",
        // No port: Claude Code picks one per sign-in; RFC 8252 §7.3 lets any port match.
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    },
  ],
]);
