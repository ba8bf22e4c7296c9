export * from "./enrollment-code.js";
export * from "./passkey-store.js";
