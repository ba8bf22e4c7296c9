/**
 * The two helpers every passkey page's script needs, as script text to put at the top of that
 * script: WebAuthn hands the page `ArrayBuffer`s and our servers speak base64url (what
 * SimpleWebAuthn's JSON forms use). `toBytes(text)` turns base64url into bytes for a ceremony's
 * options, `toText(buffer)` turns a credential's bytes back into base64url for the server. Shared
 * by the OAuth sign-in page and the gate's approval page from afar, which cannot import each other.
 */
export const PAGE_BYTES_SCRIPT = `const toBytes = (text) => {
  const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const raw = atob(base64 + "===".slice((base64.length + 3) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};
const toText = (buffer) => {
  let raw = "";
  for (const byte of new Uint8Array(buffer)) raw += String.fromCharCode(byte);
  return btoa(raw).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
};`;
