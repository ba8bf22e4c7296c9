// What the two passkey pages share (the write gate's and the OAuth sign-in page's): the stored
// credential record and its conversions, and the page's Content-Security-Policy.
export * from "./page-policy.js";
export * from "./stored-credential.js";
