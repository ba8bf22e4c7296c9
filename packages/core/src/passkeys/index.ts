// What the two passkey pages share (the write gate's and the OAuth sign-in page's): the stored
// credential record and its conversions, the one-time enrollment code, the page's
// Content-Security-Policy and the one stylesheet of every decision page (ADR 0073). (The request budget their servers charge is an HTTP matter:
// core/http-edge, ADR 0072.)
export * from "./decision-page-style.js";
export * from "./enrollment-code.js";
export * from "./page-bytes-script.js";
export * from "./page-policy.js";
export * from "./stored-credential.js";
