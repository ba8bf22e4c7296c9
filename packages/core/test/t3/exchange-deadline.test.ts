import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { exchangeDeadline } from "../../src/t3/exchange-deadline.js";

describe("exchangeDeadline", () => {
  it("aborts with a TimeoutError when the time is up, and says it timed out", async () => {
    const deadline = exchangeDeadline(1);
    await once(deadline.signal, "abort");
    expect(deadline.timedOut).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("follows the caller's signal with the caller's reason, at once when it already aborted", () => {
    const caller = new AbortController();
    const deadline = exchangeDeadline(60_000, caller.signal);
    caller.abort(new Error("the client left"));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut).toBe(false);
    expect((deadline.signal.reason as Error).message).toBe("the client left");

    const late = exchangeDeadline(60_000, caller.signal);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(caller.signal.reason);
  });

  it("after done() neither the timer nor the caller aborts the ended exchange", async () => {
    const caller = new AbortController();
    const ended = exchangeDeadline(1, caller.signal);
    ended.done();
    // A deadline of the same length armed later fires after the first one would have.
    const witness = exchangeDeadline(1);
    await once(witness.signal, "abort");
    caller.abort();
    expect(ended.signal.aborted).toBe(false);
    expect(ended.timedOut).toBe(false);
  });
});
