/**
 * The leases one OAuth session of `serve --http` holds, so that ending the session ends them (ADR
 * 0049): a relay client that notes every open lease the gate answers this session, and ends each at the gate
 * (`end_lease`, with this session's holder secret) when asked to, after withdrawing the session's
 * pending approval requests (`withdraw_requests`, same secret). Ending a lease leaves the
 * session signed in; only the session's end ends its leases.
 *
 * Once ended, the client sends nothing more (ADR 0067): a call that starts later is refused with
 * `write_session_ended`, and a request for approval that was under way when the end began is
 * answered the same way instead of with a link to a request the gate withdrew or refused (the
 * gate refuses to keep a request of a withdrawn secret, so none outlives the session).
 *
 * It is the bridge's, beside the relay client it wraps (ADR 0072): a write by URL goes from the
 * bridge's tool through this bookkeeping to the relay without coming back through `serve`.
 */
import { ConnectorError } from "@t3-connector/core";
import type { RelayClient } from "./relay-client.js";

/** Lease ids noted per session at most (a session holds one lease at a time; a few replaced ones linger). */
const MAX_NOTED = 32;

export class SessionLeases implements RelayClient {
  readonly #relay: RelayClient;
  readonly #held = new Set<string>();
  /** Why this session's writes ended, once they have; the refusal's message. */
  #ended: string | undefined;

  constructor(relay: RelayClient) {
    this.#relay = relay;
  }

  readonly call: RelayClient["call"] = async (body, signal, options) => {
    if (this.#ended !== undefined) throw sessionEnded(this.#ended);
    const answer = await this.#relay.call(body, signal, options);
    // The session ended while the gate built this request: the gate withdrew it or refused it.
    if (this.#ended !== undefined && body.op === "request_approval") throw sessionEnded(this.#ended);
    this.#noteOpen(answer);
    return answer;
  };

  /**
   * Ends the session at the gate: first its pending approval requests are withdrawn (their links
   * say the session ended; approving one grants nothing; one still being built is refused), then
   * every lease it was answered is ended. Withdrawing first means no approval lands a lease after
   * the leases were ended. `why` is what a later call of this session is told. Answers how many
   * leases were still open.
   */
  async endAll(log: (line: string) => void, why: string): Promise<number> {
    this.#ended ??= why;
    try {
      await this.#relay.call({ op: "withdraw_requests" });
    } catch (error) {
      // A gate that is down holds no request past its restart; one that refuses says so in the log.
      log(`withdrawing the session's approval requests failed: ${(error as Error).message}`);
    }
    try {
      // A lease approved while the session never asked again was never answered to it: ask once.
      this.#noteOpen(await this.#relay.call({ op: "lease" }));
    } catch {
      // Nothing to add: the leases already noted are still ended below.
    }
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

  #noteOpen(answer: unknown): void {
    const open = answer as { active?: unknown; leaseId?: unknown };
    if (open.active !== true || typeof open.leaseId !== "string") return;
    this.#held.delete(open.leaseId);
    this.#held.add(open.leaseId);
    if (this.#held.size > MAX_NOTED) this.#held.delete(this.#held.values().next().value as string);
  }
}

function sessionEnded(why: string): ConnectorError {
  return new ConnectorError("write_session_ended", why);
}
