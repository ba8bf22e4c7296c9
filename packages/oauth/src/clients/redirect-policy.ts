/**
 * @module Which redirect URIs a client may use. Matching at `/authorize` is always exact against
 * what the client registered (or its metadata document lists); this decides what may be
 * registered or listed in the first place.
 */
import { CHATGPT_CONNECTOR_CALLBACK, type OAuthSettings } from "../settings/index.js";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** RFC 8252 §7.3: `http://127.0.0.1:<port>/…` (or `[::1]`, `localhost`), any port, no fragment. */
export function isLoopbackRedirect(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname) && url.hash === "";
}

/** A DCR client's redirect: on the allowlist, or loopback when the config allows loopback. */
export function dcrRedirectProblem(uri: string, settings: OAuthSettings): string | undefined {
  if (!URL.canParse(uri)) return `"${uri}" is not a URL`;
  if (settings.redirectUris.includes(uri) || CHATGPT_CONNECTOR_CALLBACK.test(uri)) return undefined;
  if (isLoopbackRedirect(uri)) {
    return settings.loopbackRedirects
      ? undefined
      : "loopback redirect URIs are refused unless the oauth section sets loopbackRedirects: true";
  }
  return `the redirect URI ${new URL(uri).origin}… is not on this server's allowlist (oauth.redirectUris)`;
}

/**
 * A CIMD client's listed redirect: https or loopback. Loopback needs no config here, unlike DCR:
 * the document's URL is on the operator's allowlist (Claude Code's lists only loopback callbacks),
 * a loopback callback delivers the code to the signing-in browser's own machine, and the consent
 * page says so.
 */
export function cimdRedirectProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return `"${uri}" is not a URL`;
  const url = new URL(uri);
  if (url.hash !== "") return "a redirect URI has no fragment";
  if (url.protocol === "https:" || isLoopbackRedirect(uri)) return undefined;
  return "a client's redirect URI must be https or loopback";
}

/**
 * Whether a requested redirect URI is one the client registered: exactly, or (RFC 8252 §7.3) a
 * loopback one that differs only in its port, since a native client picks a free port per sign-in
 * and Claude Code's document lists its callbacks with none.
 */
export function redirectMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!isLoopbackRedirect(requested)) return false;
  const asked = new URL(requested);
  return registered.some((uri) => {
    if (!isLoopbackRedirect(uri)) return false;
    const listed = new URL(uri);
    return (
      listed.hostname === asked.hostname &&
      listed.pathname === asked.pathname &&
      listed.search === asked.search &&
      listed.username === asked.username &&
      listed.password === asked.password
    );
  });
}
