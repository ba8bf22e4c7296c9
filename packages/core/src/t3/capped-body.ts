import { ConnectorError } from "../errors.js";
import { type BodyMessage, readBoundedBody } from "../http-edge/bounded-body.js";

/**
 * Largest T3 HTTP answer the connector reads (descriptor, shell, thread, history, projects). The
 * biggest legitimate answer is a full thread snapshot of an older server, a few MiB for a long
 * thread; 32 MiB leaves room for that and bounds what one hostile environment can make the
 * process hold per request (ADR 0020).
 */
export const MAX_T3_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * What one environment's answers may hold at once while they are read: four answers at the cap.
 * The per-answer cap alone would let one environment multiply it by its reads in flight (a batch
 * reads four projections at a time, `serve --http` runs 16 calls); the budget bounds that
 * environment's share of the process whatever the concurrency, and only its own reads are
 * refused when it is spent (ADR 0020).
 */
export const MAX_T3_ANSWER_BYTES_IN_FLIGHT = 4 * MAX_T3_ANSWER_BYTES;

/** Bytes held by the answers of one environment (one T3 client) being read now. */
export class AnswerBudget {
  readonly maxBytes: number;
  #held = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` if they fit; false (nothing taken) if they would pass the budget. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}

/** An answer read whole, or why it was refused unread: its own size, or its environment's budget. */
export type CappedText = { readonly text: string } | { readonly refused: "answer" | "budget" };

/**
 * Reads `response`'s body as UTF-8, chunk by chunk, and gives up as soon as it passes
 * `maxBytes` (or its declared length does), or as soon as a chunk does not fit `budget`: the
 * process never holds more than `maxBytes` of one answer, nor more than the budget of one
 * environment's answers. A stream error (abort, reset) is thrown as is.
 */
export async function readCappedText(
  response: BodyMessage,
  maxBytes: number,
  budget?: AnswerBudget,
): Promise<CappedText> {
  const read = await readBoundedBody(response, {
    maxBytes,
    ...(budget === undefined ? {} : { hold: budget }),
  });
  switch (read.kind) {
    case "ok":
      return { text: new TextDecoder().decode(read.bytes) };
    case "too_large":
      return { refused: "answer" };
    case "over_hold":
      return { refused: "budget" };
    case "aborted":
      throw read.error;
  }
}

/** `response_too_large`, naming the environment (when known), the route and the limit. */
export function answerTooLarge(
  environment: string | undefined,
  route: string,
  maxBytes: number,
): ConnectorError {
  const where = environment === undefined ? "" : `environment "${environment}": `;
  return new ConnectorError(
    "response_too_large",
    `${where}${route}: T3 answered more than ${maxBytes} bytes (${Math.round(maxBytes / 1024 / 1024)} MiB), the most the connector reads; the answer was refused unread`,
    { details: { ...(environment === undefined ? {} : { environment }), route, limitBytes: maxBytes } },
  );
}

/** `response_too_large` for an answer refused because its environment's budget was spent. */
export function budgetSpent(
  environment: string | undefined,
  route: string,
  budget: AnswerBudget,
): ConnectorError {
  const where = environment === undefined ? "" : `environment "${environment}": `;
  return new ConnectorError(
    "response_too_large",
    `${where}${route}: this environment's answers being read at once passed ${budget.maxBytes} bytes (${Math.round(budget.maxBytes / 1024 / 1024)} MiB), the most the connector holds for one environment; the answer was refused unread`,
    {
      details: {
        ...(environment === undefined ? {} : { environment }),
        route,
        limitBytes: budget.maxBytes,
        limit: "environment_in_flight",
      },
    },
  );
}
