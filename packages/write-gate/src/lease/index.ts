export { GateLeaseKeeper, type GrantedLease, LEASE_TTL_MS, MAX_LISTED_WRITES } from "./lease-keeper.js";
