export {
  ApprovalError,
  type ApprovalFailure,
  GateApprovalDesk,
  type GateApprovalDeskOptions,
  MAX_PENDING_REQUESTS,
  REQUEST_TTL_MS,
  type RequestView,
} from "./approval-desk.js";
export {
  grantFromShell,
  INVENTORY_TIMEOUT_MS,
  type Inventory,
  type InventoryOutcome,
  registryInventory,
} from "./inventory.js";
export { narrowScope, type Selection, scopeFingerprint, selectionSchema } from "./scope.js";
