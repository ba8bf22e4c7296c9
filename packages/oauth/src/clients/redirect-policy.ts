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

/** A CIMD client's listed redirect: https, or loopback when the config allows loopback. */
export function cimdRedirectProblem(uri: string, settings: OAuthSettings): string | undefined {
  if (!URL.canParse(uri)) return `"${uri}" is not a URL`;
  const url = new URL(uri);
  if (url.hash !== "") return "a redirect URI has no fragment";
  if (url.protocol === "https:") return undefined;
  if (isLoopbackRedirect(uri) && settings.loopbackRedirects) return undefined;
  return "a client's redirect URI must be https (or loopback with loopbackRedirects: true)";
}
