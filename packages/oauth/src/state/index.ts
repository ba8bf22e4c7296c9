export * from "./private-json.js";
export * from "./revocation-watch.js";
export * from "./session-book.js";
export * from "./session-files.js";
export * from "./terminal-sessions.js";
