import {
  openCursor,
  type Page,
  type PageOrder,
  paginate,
  type QueryIdentity,
  type SignatureValue,
} from "@t3-connector/core/pagination";
import type { ReadContext } from "../read-context.js";
import type { ScopeEnvelope } from "../scope/read-scope.js";

/**
 * What a paginated call was asked for: the tool, its filters, the environment filter and the
 * environments it set out to read. Resolving the environment here also refuses an unknown one
 * (`environment_unknown`, listing the aliases) before anything is read.
 */
export function listingIdentity(
  context: ReadContext,
  tool: string,
  filters: readonly SignatureValue[],
  environment: string | undefined,
): QueryIdentity {
  if (environment === undefined) {
    return {
      tool,
      filters,
      environmentFilter: null,
      selectedEnvironmentIds: context.registry.environments.map((handle) => handle.environmentId),
    };
  }
  const handle = context.registry.resolve(environment);
  return {
    tool,
    filters,
    environmentFilter: handle.environmentId,
    selectedEnvironmentIds: [handle.environmentId],
  };
}

/**
 * Refuses a cursor of another query before the sweep, so a mismatch costs no read. The coverage
 * part of the signature can only be checked once the environments have answered (`pageOf`).
 */
export function checkCursor(context: ReadContext, identity: QueryIdentity, cursor: string | undefined): void {
  if (cursor !== undefined) openCursor(context.cursors, cursor, identity);
}

/** One page of the merged matches, its cursor bound to the identity and to who answered. */
export function pageOf<T>(
  context: ReadContext,
  identity: QueryIdentity,
  envelope: ScopeEnvelope,
  matches: readonly T[],
  order: PageOrder<T>,
  request: { cursor?: string | undefined; limit?: number | undefined },
): Page<T> {
  return paginate(context.cursors, matches, order, {
    signature: {
      ...identity,
      answeredEnvironmentIds: envelope.queriedEnvironments.map((environment) => environment.environmentId),
    },
    cursor: request.cursor,
    limit: request.limit,
  });
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
export function envelopeFields(envelope: ScopeEnvelope): {
  environment?: { alias: string; environmentId: string };
  complete: boolean;
  queriedEnvironments: ScopeEnvelope["queriedEnvironments"];
  environmentFailures: ScopeEnvelope["environmentFailures"];
} {
  return {
    ...(envelope.environment === undefined ? {} : { environment: envelope.environment }),
    complete: envelope.complete,
    queriedEnvironments: envelope.queriedEnvironments,
    environmentFailures: envelope.environmentFailures,
  };
}
