/**
 * The leases one OAuth session holds, so that ending the session ends them (ADR 0049): a relay
 * client that notes every open lease the gate answers this session, and ends each at the gate
 * (`end_lease`, with this session's holder secret) when asked to. Ending a lease leaves the
 * session signed in; only the session's end ends its leases.
 */
import type { RelayClient } from "@t3-connector/write-bridge";

/** Lease ids noted per session at most (a session holds one lease at a time; a few replaced ones linger). */
const MAX_NOTED = 32;

export class SessionLeases implements RelayClient {
  readonly #relay: RelayClient;
  readonly #held = new Set<string>();

  constructor(relay: RelayClient) {
    this.#relay = relay;
  }

  readonly call: RelayClient["call"] = async (body, signal, options) => {
    const answer = await this.#relay.call(body, signal, options);
    const open = answer as { active?: unknown; leaseId?: unknown };
    if (open.active === true && typeof open.leaseId === "string") this.#note(open.leaseId);
    return answer;
  };

  /** Ends every lease this session was answered at the gate; answers how many were still open. */
  async endAll(log: (line: string) => void): Promise<number> {
    let ended = 0;
    for (const leaseId of this.#held) {
      try {
        const answer = await this.#relay.call({ op: "end_lease", leaseId });
        if (answer.ended) ended += 1;
      } catch (error) {
        // A gate that is down holds no lease; one that refuses says so in the log.
        log(`ending lease ${leaseId.slice(0, 8)}… failed: ${(error as Error).message}`);
      }
    }
    this.#held.clear();
    return ended;
  }

  #note(leaseId: string): void {
    this.#held.delete(leaseId);
    this.#held.add(leaseId);
    if (this.#held.size > MAX_NOTED) this.#held.delete(this.#held.values().next().value as string);
  }
}
