export {
  type ClosedLease,
  GateLeaseKeeper,
  type GrantedLease,
  holderHashOf,
  LEASE_HISTORY_LENGTH,
  LEASE_TTL_MS,
  MAX_LISTED_WRITES,
} from "./lease-keeper.js";
