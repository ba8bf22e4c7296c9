export {
  GateApprovalDesk,
  type GateApprovalDeskOptions,
  MAX_PENDING_PER_CLIENT,
  MAX_PENDING_REQUESTS,
  MAX_WAITERS_PER_REQUEST,
  type PendingRequestRow,
  REQUEST_TTL_MS,
  type RequestView,
} from "./approval-desk.js";
export {
  grantFromShell,
  INVENTORY_TIMEOUT_MS,
  type Inventory,
  type InventoryOutcome,
  type InventoryThread,
  registryInventory,
} from "./inventory.js";
export {
  bindProjectWrites,
  type ProjectWriteFacts,
  registryProjectWriteFacts,
  type ShownProjectWrite,
} from "./project-writes.js";
export {
  type ClientInfo,
  checkProposal,
  cleanText,
  type InventoryView,
  type Preselection,
  type Proposal,
  PURPOSE_MAX_CHARS,
  preselect,
} from "./proposal.js";
export { type DeadRequestCode, MAX_TOMBSTONES, RequestTombstones } from "./request-tombstones.js";
export {
  limitToThreads,
  type NamedThread,
  narrowScope,
  type RequestFacts,
  requestFingerprint,
  type Selection,
  scopeFingerprint,
  selectionSchema,
} from "./scope.js";
