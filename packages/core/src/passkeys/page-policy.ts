/**
 * The Content-Security-Policy of both passkey pages: each loads only its own files, is framed by
 * nobody and submits no form anywhere. Written as Hono's `secureHeaders` takes it; the header text
 * is derived from the same table, so a page and its test cannot drift apart.
 */
export const PASSKEY_PAGE_CSP = Object.freeze({
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
});

/** The header value: `default-src 'none'; script-src 'self'; …`. */
export function passkeyPageCspHeader(): string {
  return Object.entries(PASSKEY_PAGE_CSP)
    .map(
      ([directive, sources]) =>
        `${directive.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(" ")}`,
    )
    .join("; ");
}
