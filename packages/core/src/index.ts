// The root exports only what every part of the product shares. Each area has its own entry
// point, imported by subpath: `@t3-connector/core/config`, `/environments`, `/t3`, `/fanout`,
// `/mirror`, `/state`, `/diff`, `/pagination`, `/search`, `/schema`, `/durable`, `/pairing`, `/passkeys`,
// `/cli-support`.
// The write side's catalogue, dispatch and journal live in `@t3-connector/write-engine`.
export * from "./canonical-json.js";
export * from "./clock.js";
export * from "./errors.js";
export * from "./run-status.js";
