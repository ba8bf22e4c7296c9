// What the two passkey pages share (the write gate's and the OAuth sign-in page's): the stored
// credential record and its conversions, the page's Content-Security-Policy and the per-address
// request budget their servers charge.

export * from "./decision-page-style.js";
export * from "./page-bytes-script.js";
export * from "./page-policy.js";
export * from "./request-budget.js";
export * from "./stored-credential.js";
