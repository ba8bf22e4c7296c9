import {
  openCursor,
  type Page,
  type PageOrder,
  paginate,
  type QueryIdentity,
} from "@t3-connector/core/pagination";
import type { ListingEnvelope, ReadSource } from "./read-source.js";

/**
 * Refuses a cursor of another query before the sweep, so a mismatch costs no read. The coverage
 * part of the signature can only be checked once the environments have answered (`pageOf`).
 */
export function checkCursor(
  source: Pick<ReadSource, "cursors">,
  identity: QueryIdentity,
  cursor: string | undefined,
): void {
  if (cursor !== undefined) openCursor(source.cursors, cursor, identity);
}

/** One page of the merged matches, its cursor bound to the identity and to who answered. */
export function pageOf<T>(
  source: Pick<ReadSource, "cursors">,
  identity: QueryIdentity,
  envelope: ListingEnvelope,
  matches: readonly T[],
  order: PageOrder<T>,
  request: { cursor?: string | undefined; limit?: number | undefined },
): Page<T> {
  return paginate(source.cursors, matches, order, {
    signature: { ...identity, answeredEnvironmentIds: answeredIds(envelope) },
    cursor: request.cursor,
    limit: request.limit,
  });
}

export function answeredIds(envelope: ListingEnvelope): string[] {
  return envelope.queriedEnvironments.map((environment) => environment.environmentId);
}

/** The page fields in answer order; `nextCursor` and `changedSinceStart` only when set. */
export function pageFields<T>(page: Page<T>): {
  total: number;
  returned: number;
  truncated: boolean;
  nextCursor?: string;
  changedSinceStart?: number;
} {
  return {
    total: page.total,
    returned: page.returned,
    truncated: page.truncated,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    ...(page.changedSinceStart === undefined ? {} : { changedSinceStart: page.changedSinceStart }),
  };
}

/** The envelope fields of a listing; `environment` only when the call named one. */
export function envelopeFields(envelope: ListingEnvelope): {
  environment?: { alias: string; environmentId: string };
  complete: boolean;
  queriedEnvironments: ListingEnvelope["queriedEnvironments"];
  environmentFailures: ListingEnvelope["environmentFailures"];
} {
  return {
    ...(envelope.environment === undefined ? {} : { environment: envelope.environment }),
    complete: envelope.complete,
    queriedEnvironments: envelope.queriedEnvironments,
    environmentFailures: envelope.environmentFailures,
  };
}
