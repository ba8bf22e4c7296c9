import { createHash } from "node:crypto";
import { canonicalJson } from "../canonical-json.js";

/** A JSON value that can take part in a query signature. */
export type SignatureValue =
  | string
  | number
  | boolean
  | null
  | readonly SignatureValue[]
  | { readonly [key: string]: SignatureValue };

/**
 * What a listing was asked for. Two calls with the same identity walk the same result set, so a
 * cursor from one is valid for the other.
 */
export interface QueryIdentity {
  /** Tool name, e.g. `t3_threads`. */
  tool: string;
  /** Tool-specific filters in a fixed order (normalised search, projectId, state, …). */
  filters: readonly SignatureValue[];
  /** environmentId of an explicit `environment` argument, or null for a sweep of every environment. */
  environmentFilter: string | null;
  /** environmentIds the call set out to query. */
  selectedEnvironmentIds: readonly string[];
}

/** The identity plus the coverage: the environments that actually answered this call. */
export interface QuerySignature extends QueryIdentity {
  answeredEnvironmentIds: readonly string[];
}

/**
 * The signature as stored in a cursor: `<query digest>:<coverage digest>`. Two separate digests let
 * the reader tell "another query" (invalid cursor) from "same query, other environments answered"
 * (coverage changed). Digests instead of clear text keep cursors short and keep search terms out of
 * them.
 */
export interface SignatureDigests {
  query: string;
  coverage: string;
}

export function digestQuery(identity: QueryIdentity): string {
  // Environment sets are compared as sets: the order the registry lists them in carries no meaning.
  return digest([
    identity.tool,
    identity.filters,
    identity.environmentFilter,
    [...identity.selectedEnvironmentIds].sort(),
  ]);
}

export function digestSignature(signature: QuerySignature): SignatureDigests {
  return {
    query: digestQuery(signature),
    coverage: digest([...signature.answeredEnvironmentIds].sort()),
  };
}

export function formatSignature(digests: SignatureDigests): string {
  return `${digests.query}:${digests.coverage}`;
}

export function parseSignature(text: string): SignatureDigests | undefined {
  const match = /^([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)$/.exec(text);
  if (match === null || match[1] === undefined || match[2] === undefined) return undefined;
  return { query: match[1], coverage: match[2] };
}

function digest(value: SignatureValue): string {
  // 128 bits is plenty to tell queries apart; the cursor's own HMAC is what stops forgery.
  return createHash("sha256").update(canonicalJson(value)).digest().subarray(0, 16).toString("base64url");
}
