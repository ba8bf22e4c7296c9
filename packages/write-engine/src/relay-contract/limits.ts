/** The wire of the bridge→gate relay: where, which header, how much, how long. Stated once. */

/** The gate's one door for the bridge. */
export const RELAY_PATH = "/relay";
/** Carries the gate's per-boot capability (read by the bridge from the gate's state directory). */
export const RELAY_HEADER = "x-t3-private-relay";
/** The largest request body either side accepts (the bridge refuses to send more). */
export const MAX_RELAY_BODY_BYTES = 131_072;
/** The largest answer the bridge reads (leased reads are capped well below it). */
export const MAX_RELAY_ANSWER_BYTES = 8 * 1024 * 1024;
/** A relay call's own deadline when it does not wait for a person. */
export const RELAY_TIMEOUT_MS = 20_000;
/** The longest a relay call may wait for the person (well under a tunnel's 10-minute connection TTL). */
export const MAX_APPROVAL_WAIT_MS = 300_000;
