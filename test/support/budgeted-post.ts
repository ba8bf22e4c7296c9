/**
 * One request to a rate-budgeted route from a loopback address of the test's choosing (127.0.0.2,
 * 127.1.x.y, …), as a distinct host would send it, and the check that a budget is spent. The
 * budget tests behind a trusted proxy (ADR 0044) attack the approval page and the OAuth sign-in
 * with it.
 */
import { request } from "node:http";
import { expect } from "vitest";

export interface BudgetedPost {
  /** Where the TCP connection goes (a proxy, serve or the gate). */
  readonly port: number;
  /** The client's own loopback address. */
  readonly from: string;
  readonly host: string;
  readonly origin: string;
  readonly path: string;
  /** A JSON body, sent as it is. */
  readonly body: string;
  readonly headers?: Record<string, string>;
}

/** Sends the POST and answers its status once the whole answer was read. */
export function postFrom(post: BudgetedPost): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: post.port,
        localAddress: post.from,
        method: "POST",
        path: post.path,
        headers: {
          host: post.host,
          origin: post.origin,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(post.body),
          ...post.headers,
        },
      },
      (answer) => {
        answer.resume();
        answer.once("end", () => resolve(answer.statusCode ?? 0));
      },
    );
    outgoing.once("error", reject);
    outgoing.end(post.body);
  });
}

/**
 * Spends a budget of `budget` calls: `send(n)` for n = 0…budget, one after the other, expecting
 * `budget` answers 400 (the call was counted and then refused on its merits) and then a 429.
 */
export async function expectBudgetSpent(budget: number, send: (n: number) => Promise<number>): Promise<void> {
  const statuses: number[] = [];
  for (let n = 0; n <= budget; n += 1) statuses.push(await send(n));
  expect(statuses.slice(0, budget)).toEqual(Array(budget).fill(400));
  expect(statuses[budget]).toBe(429);
}
