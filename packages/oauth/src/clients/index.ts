export * from "./client-assertion.js";
export * from "./client-record.js";
export * from "./metadata-documents.js";
export * from "./metadata-fetcher.js";
export * from "./redirect-policy.js";
export * from "./registered-clients.js";
