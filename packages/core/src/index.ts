// The root exports only what every part of the product shares. Each area has its own entry
// point, imported by subpath: `@t3-connector/core/config`, `/environments`, `/t3`, `/fanout`,
// `/state`, `/pagination`, `/search`, `/actions`, `/journal`.
export * from "./canonical-json.js";
export * from "./clock.js";
export * from "./errors.js";
