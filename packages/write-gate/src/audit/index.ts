export { type AuditCheck, anchorProblem, checkAuditText, GENESIS } from "./audit-chain.js";
export { AUDIT_FILE, type AuditFs, type AuditLog, type AuditLogOptions, openAuditLog } from "./audit-log.js";
export { auditWitness, readAuditText } from "./audit-witness.js";
export { type AuditEvent, type AuditLine, reconciledEvent } from "./events.js";
export { auditLeaseChanges } from "./lease-events.js";
