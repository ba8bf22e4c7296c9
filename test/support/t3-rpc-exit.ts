/** How core reads a T3 RPC exit (`Fail`, `Die`), for tests that build one; core does not export it. */
export { errorFromCause } from "../../packages/core/src/t3/rpc/exit.js";
