export * from "./command-rule.js";
export * from "./command-support.js";
export * from "./command-support-cache.js";
export * from "./probe-command-support.js";
export * from "./unkept-fields.js";
