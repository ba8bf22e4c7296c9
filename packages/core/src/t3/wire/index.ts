export * from "./environment.js";
export * from "./lenient.js";
export * from "./server-config.js";
export * from "./shell.js";
export * from "./stream-items.js";
export * from "./thread.js";
export * from "./vcs.js";
