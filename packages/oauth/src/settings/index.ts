export * from "./known-clients.js";
export * from "./oauth-settings.js";
