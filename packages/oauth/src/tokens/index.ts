export * from "./secrets.js";
