/**
 * @module Copies of vendor client metadata documents shipped with this release, for clients whose
 * live document is known to be unreachable from some servers: claude.ai answers fetches from
 * datacenter addresses with a 403 challenge page, has answered HTML instead of JSON, and its
 * `claude.com` twin answered 404 (docs/oauth.md). A pinned copy is used only when the live fetch
 * fails or answers anything but a valid document; a live document that passes always wins.
 *
 * Each of Claude's copies is the document as its vendor served it on the date given, field for
 * field (a test checks each names its own URL and its vendor's callbacks). ChatGPT's copy holds the
 * fields its sign-in was seen with (its name, callback and `private_key_jwt`) and NOT its keys:
 * its vendor rotates them, and a stale key must never verify anything. So a pinned ChatGPT lets the
 * person reach the consent page with no live fetch; its code exchange needs the live keys, which
 * the token endpoint fetches then (client-directory.ts), or refuses saying why (ADR 0070).
 */
import { CHATGPT_CLIENT_ID_URL, CLAUDE_CLIENT_ID_URL, CLAUDE_CODE_CLIENT_ID_URL } from "../settings/index.js";

export interface PinnedDocument {
  /** When the vendor served this copy (ISO date). */
  readonly servedOn: string;
  readonly document: Readonly<Record<string, unknown>>;
}

export const PINNED_DOCUMENTS: ReadonlyMap<string, PinnedDocument> = new Map([
  [
    CHATGPT_CLIENT_ID_URL,
    {
      servedOn: "2026-10-04",
      document: {
        client_id: CHATGPT_CLIENT_ID_URL,
        client_name: "ChatGPT",
        redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
        token_endpoint_auth_method: "private_key_jwt",
      },
    },
  ],
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
