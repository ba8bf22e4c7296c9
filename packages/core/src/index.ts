export * from "./clock.js";
export * from "./errors.js";
