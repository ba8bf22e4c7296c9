/**
 * The one place the approval page's forward names its client to the gate (ADR 0044): `serve --http`
 * forwards `/approve…` to the gate over loopback and says there which client address the request
 * came from (the TCP peer, or the one a trusted proxy reported). The gate keys the page's budget by
 * it only when the same request also carries the relay capability of the gate's boot, which only a
 * process of the gate's user can read: a browser, or a client that sets these headers itself,
 * is counted by its own socket as before.
 */
export const FORWARDED_CLIENT_HEADER = "x-t3c-forwarded-client";
/** The gate's per-boot relay capability, presented with the client address it vouches for. */
export const FORWARD_CAPABILITY_HEADER = "x-t3c-forward-capability";
