export { type GrantedLease, GateLeaseKeeper, LEASE_TTL_MS, MAX_LISTED_WRITES } from "./lease-keeper.js";
