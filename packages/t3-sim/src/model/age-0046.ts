/**
 * The simulator's 0.0.46 age (orchestration protocol 2, the stable cut-over): the default
 * protocol-2 profile, plus one flag per point the sources leave open or dispute. Each flag's
 * first value is what the simulator did before this age existed; the sources of each are cited in
 * docs/t3-protocol-notes.md ("T3 0.0.46: the unknown points"), and ADR 0069 says why.
 * Tests run the connector against both values of every flag: `UNKNOWNS_0046_AS_BEFORE` and
 * `UNKNOWNS_0046_OTHERWISE` together cover every variant in two runs.
 */
export interface Unknowns0046 {
  /** `GET /api/projects`: in a V2-era fork's contract, absent from 8ed276c's route list (then the web page). */
  readonly projectsRoute: "present" | "absent";
  /** Secret requests: the simulator's reading (row `pendingSecretRequest`, item `name`/`prompt`) or e65063cc's (item `label`/`reason`/`placeholder`, no row field). */
  readonly secretRequests: "simulator" | "upstream";
  /** Whether a dispatch refusal carries its nested `Orchestrator…Error` `cause`, or only the user-facing `message`. */
  readonly refusalCause: "sent" | "absent";
  /** `thread.pull-request.watch`'s `paused`: kept, or ignored as an excess key (the newer schema has none). */
  readonly pullRequestWatchPaused: "kept" | "ignored";
  /** `getThreadProjection`: the whole projection, or windowed like the bounded snapshot (8ed276c). */
  readonly threadProjection: "whole" | "windowed";
  /** `subscribeThread` without `acceptBoundedSnapshot`: a full snapshot (8ed276c) or a bounded one (project notes). */
  readonly threadSnapshotDefault: "full" | "bounded";
  /** `getTurnItem`: served (e65063cc), or unknown to the earliest 0.0.46 builds (8ed276c's map). */
  readonly getTurnItem: "served" | "absent";
  /** Pairing with an explicit `scope`: exactly what was asked, or a superset (granular scopes). */
  readonly scopeGrant: "exact" | "superset";
}

export const UNKNOWNS_0046_AS_BEFORE: Unknowns0046 = Object.freeze({
  projectsRoute: "present",
  secretRequests: "simulator",
  refusalCause: "sent",
  pullRequestWatchPaused: "kept",
  threadProjection: "whole",
  threadSnapshotDefault: "full",
  getTurnItem: "served",
  scopeGrant: "exact",
});

export const UNKNOWNS_0046_OTHERWISE: Unknowns0046 = Object.freeze({
  projectsRoute: "absent",
  secretRequests: "upstream",
  refusalCause: "absent",
  pullRequestWatchPaused: "ignored",
  threadProjection: "windowed",
  threadSnapshotDefault: "bounded",
  getTurnItem: "absent",
  scopeGrant: "superset",
});

/** Every flag with both its values, in order (a test walks them). */
export const UNKNOWN_VARIANTS_0046: { readonly [K in keyof Unknowns0046]: readonly Unknowns0046[K][] } = {
  projectsRoute: ["present", "absent"],
  secretRequests: ["simulator", "upstream"],
  refusalCause: ["sent", "absent"],
  pullRequestWatchPaused: ["kept", "ignored"],
  threadProjection: ["whole", "windowed"],
  threadSnapshotDefault: ["full", "bounded"],
  getTurnItem: ["served", "absent"],
  scopeGrant: ["exact", "superset"],
};

/** The scope a `superset` grant adds (one of the granular scopes newer builds have). */
export const SUPERSET_EXTRA_SCOPE = "diagnostics:read";

export function unknowns0046(given: Partial<Unknowns0046> | undefined): Unknowns0046 {
  return { ...UNKNOWNS_0046_AS_BEFORE, ...given };
}

/** A dispatch refusal as T3 renders it when only the user-facing message travels. */
export function withoutCause(error: Record<string, unknown>): Record<string, unknown> {
  const { cause: _cause, ...rest } = error;
  return rest;
}
