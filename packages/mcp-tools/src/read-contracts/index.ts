export * from "./listing-orders.js";
export * from "./listing-schemas.js";
export * from "./read-tool-contracts.js";
export * from "./thread-read-schemas.js";
