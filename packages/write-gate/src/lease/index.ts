export {
  type ClosedLease,
  GateLeaseKeeper,
  type GrantedLease,
  holderHashOf,
  LEASE_HISTORY_LENGTH,
  LEASE_TTL_MS,
  type LeaseChange,
  MAX_LISTED_WRITES,
  MAX_OPEN_LEASES,
} from "./lease-keeper.js";
