/**
 * Scope vocabulary and the per-RPC scope table of the simulated server (scope-bundle era, the
 * vocabulary the captured 0.0.31 server reports in `/api/auth/session`).
 */

export const SCOPE_READ = "orchestration:read";
export const SCOPE_OPERATE = "orchestration:operate";
export const SCOPE_ACCESS_WRITE = "access:write";

/** Every scope a token may carry; anything else in an `/oauth/token` `scope=` is `invalid_scope`. */
export const KNOWN_SCOPES: readonly string[] = [
  "orchestration:read",
  "orchestration:operate",
  "terminal:operate",
  "review:write",
  "relay:read",
  "access:read",
  "access:write",
  "relay:write",
  "plugins:manage",
];

/** What `t3 auth pairing create` grants by default (fixture 05). */
export const STANDARD_CLIENT_SCOPES: readonly string[] = [
  "orchestration:read",
  "orchestration:operate",
  "terminal:operate",
  "review:write",
  "relay:read",
];

/** The CLI-issued admin session, in the order fixture 04 lists it. */
export const ADMINISTRATIVE_SCOPES: readonly string[] = [
  ...STANDARD_CLIENT_SCOPES,
  "access:read",
  "access:write",
  "relay:write",
];

export function isKnownScope(scope: string): boolean {
  return KNOWN_SCOPES.includes(scope) || /^plugin:[^:\s]+:(read|operate)$/.test(scope);
}

/** Commands change state and need `orchestration:operate` (fixtures 35, 78, 111); every other RPC reads. */
const OPERATE_TAGS = new Set([
  "orchestration.dispatchCommand",
  "orchestration.launchThread",
  "projects.mutate",
]);

export function requiredScopeForTag(tag: string): string {
  return OPERATE_TAGS.has(tag) ? SCOPE_OPERATE : SCOPE_READ;
}

export function isCommandTag(tag: string): boolean {
  return OPERATE_TAGS.has(tag);
}
