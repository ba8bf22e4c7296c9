export * from "./passkey-store.js";
