// The root exports only what every part of the product shares. Each area has its own entry
// point, imported by subpath: `@t3-connector/core/config`, `/environments`, `/t3`, `/fanout`,
// `/mirror`, `/state`, `/pagination`, `/search`, `/schema`, `/actions`, `/dispatch`, `/journal`,
// `/pairing`, `/cli-support`.
export * from "./canonical-json.js";
export * from "./clock.js";
export * from "./errors.js";
export * from "./run-status.js";
