// Every way a request link can be dead, in words a person can act on.

const ASK_AGAIN = "Ask the client (your AI assistant) to request approval again; it gets a new link.";

export const DEAD_ENDS = {
  request_expired: {
    title: "This request expired",
    what: "Nobody approved it in time, so nothing was granted.",
    next: ASK_AGAIN,
  },
  request_used: {
    title: "This request was already used",
    what: "A request takes one passkey approval, and this one had it. If that opened a lease, it is shown below while it lasts.",
    next: "To change what the lease covers, revoke it and ask the client for a new request.",
  },
  request_denied: {
    title: "This request was denied",
    what: "It was denied here, and the client was told. Nothing was granted.",
    next: `If that was a mistake: ${ASK_AGAIN}`,
  },
  request_superseded: {
    title: "A newer request replaced this one",
    what: "The same client asked again, or Revoke all ended every request, so this link no longer approves anything.",
    next: "Use the newest request (listed under Waiting requests, if there is one), or ask the client again.",
  },
  request_withdrawn: {
    title: "The session that asked ended",
    what: "The client's sign-in session ended (it was revoked, it expired, or a stolen token was detected) before anyone approved, so this request was withdrawn and nothing was granted.",
    next: "If you still want it: sign the client in again and ask it for a new request.",
  },
  request_invalid: {
    title: "The gate does not know this request",
    what: "The link may be cut short or mistyped, or the gate restarted since the link was made.",
    next: ASK_AGAIN,
  },
};

export function deadEndFor(code) {
  return (
    DEAD_ENDS[code] ?? {
      title: "This request cannot be used",
      what: `The gate answered "${code}".`,
      next: ASK_AGAIN,
    }
  );
}
