/**
 * @module The clients this profile knows out of the box (docs/oauth.md names the sources).
 * A config adds to these lists; it never needs to repeat them.
 */

/** ChatGPT's client-id metadata document URL (CIMD), as ChatGPT presents it. */
export const CHATGPT_CLIENT_ID_URL = "https://chatgpt.com/oauth/client.json";

/** claude.ai's hosted client metadata document (its connectors, web and desktop): a public client. */
export const CLAUDE_CLIENT_ID_URL = "https://claude.ai/oauth/mcp-oauth-client-metadata";

/** Claude Code's hosted client metadata document: a public client with loopback callbacks. */
export const CLAUDE_CODE_CLIENT_ID_URL = "https://claude.ai/oauth/claude-code-client-metadata";

/** Callbacks a client registering by DCR may name without any config. */
export const DEFAULT_REDIRECT_URIS: readonly string[] = [
  "https://chatgpt.com/connector_platform_oauth_redirect",
  "https://claude.ai/api/mcp/auth_callback",
  "https://claude.com/api/mcp/auth_callback",
];

/**
 * ChatGPT also registers per-connector callbacks whose last segment changes when a connector is
 * recreated: one fixed prefix, one opaque id, nothing after it.
 */
export const CHATGPT_CONNECTOR_CALLBACK = /^https:\/\/chatgpt\.com\/connector\/oauth\/[A-Za-z0-9_-]{1,128}$/;

/** Client-id URLs accepted for CIMD without any config. */
export const DEFAULT_CLIENT_ID_URLS: readonly string[] = [
  CHATGPT_CLIENT_ID_URL,
  CLAUDE_CLIENT_ID_URL,
  CLAUDE_CODE_CLIENT_ID_URL,
];
