// Durable files in a private state directory: atomic writes, synced directories, an exclusive
// lock with a stale-holder check. The write engine's journal and the events outbox both build on it;
// the gate's passkey credentials and the OAuth profile's files use its small private files.
export * from "./durable-file.js";
export * from "./fs.js";
export * from "./lock.js";
export * from "./private-file.js";
export * from "./process-identity.js";
export * from "./state-dir.js";
