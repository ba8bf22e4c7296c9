/**
 * Deliberate differences between the simulator and the 0.0.31 capture, each with its reason.
 * Mirrored in docs/simulator-fidelity.md ("Deliberate differences"). The fidelity test fails on
 * any difference not listed here and on any entry here that no longer matches a difference.
 *
 * `path` matches a difference's JSON path exactly, or every path under it when it ends in `*`.
 */
export interface AllowedDifference {
  readonly fixture: string;
  readonly path: string;
  readonly reason: string;
}

const READY_PROVIDERS =
  "the sim's codex/claudeAgent are installed, signed in and ready so runs can be scripted; the capture's host had no provider CLI (status error, auth unknown, version null)";
const OWN_CATALOGUE =
  "the sim serves its own small model catalogue (no legacy models, an explicit isDefault per model, no prompt-injected effort values) that the connector tests validate against";

/** Provider-list differences, relative to a `providers[]` array. */
const PROVIDER_DIFFERENCES: readonly [string, string][] = [
  ["installed", READY_PROVIDERS],
  ["status", READY_PROVIDERS],
  ["auth.status", READY_PROVIDERS],
  ["auth.type", READY_PROVIDERS],
  ["auth.label", READY_PROVIDERS],
  ["version", READY_PROVIDERS],
  ["message", READY_PROVIDERS],
  ["models[].isLegacy", OWN_CATALOGUE],
  ["models[].isDefault", OWN_CATALOGUE],
  ["models[].capabilities.optionDescriptors[type=select].promptInjectedValues[]", OWN_CATALOGUE],
];

function providerEntries(fixture: string, providersPath: string): AllowedDifference[] {
  return PROVIDER_DIFFERENCES.map(([suffix, reason]) => ({
    fixture,
    path: `${providersPath}.${suffix}`,
    reason,
  }));
}

const GET_CONFIG = "frames[1].exit.value";
const CONFIG_SNAPSHOT = "frames[1].values[type=snapshot].config";
const PROVIDER_STATUSES = "frames[3].values[type=providerStatuses].payload";

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  ...providerEntries("62-ws-server-getConfig", `${GET_CONFIG}.providers[]`),
  ...providerEntries("83-ws-orchestrationProtocol-2-query-ignored", `${GET_CONFIG}.providers[]`),
  ...providerEntries("80-ws-subscribeServerConfig", `${CONFIG_SNAPSHOT}.providers[]`),
  ...providerEntries("80-ws-subscribeServerConfig", `${PROVIDER_STATUSES}.providers[]`),
  {
    fixture: "77-ws-getWorkflowScript-not-found",
    path: "frames[1].exit.cause[_tag=Fail].error.cause.message",
    reason:
      "the leaked host path names the sim's home (/home/sim/.claude/projects), not the capture machine's /home/dev",
  },
];

/** Fixtures the replay does not run, with the reason (none may be skipped silently). */
const DIFF_AND_VCS_STATE =
  "needs a thread whose runs edited a real repository, which the replay's empty environment cannot make; vcs-and-diff-fixtures.test.ts builds that state in the simulator and compares the answers";

const DIFF_AND_VCS_FIXTURES = [
  "120-ws-getThreadProjection-checkpoints",
  "121-ws-getTurnDiff-run-1",
  "122-ws-getTurnDiff-run-2",
  "123-ws-getFullThreadDiff",
  "124-ws-getTurnDiff-past-latest",
  "125-ws-getTurnDiff-same-count",
  "126-ws-vcs-refreshStatus-repo",
  "127-ws-vcs-refreshStatus-worktree",
  "128-ws-vcs-refreshStatus-not-a-repo",
  "129-ws-vcs-refreshStatus-missing-folder",
  "130-ws-vcs-listRefs-repo",
  "131-ws-vcs-listRefs-paged",
  "132-ws-vcs-listRefs-not-a-repo",
  "133-ws-getTurnDiff-from-0-after-two-runs",
  "134-ws-getFullThreadDiff-after-two-runs",
];

export const SKIPPED_FIXTURES: ReadonlyMap<string, string> = new Map([
  ...[
    "100-ws-projects-mutate-create",
    "101-ws-projects-mutate-create-missing-root",
    "102-ws-projects-mutate-create-root-if-missing",
    "103-ws-projects-mutate-update-title",
    "104-ws-projects-mutate-meta-update",
    "105-ws-dispatch-project-meta-update",
    "106-ws-projects-mutate-delete-not-empty",
    "107-http-projects-mutate-delete-not-empty",
    "108-ws-projects-mutate-delete-force",
    "109-http-projects-after-delete",
    "110-ws-projects-mutate-delete-unknown",
    "111-ws-projects-mutate-read-only",
    "112-ws-projects-mutate-duplicate-commandId",
    "113-ws-projects-mutate-create-same-root",
    "114-ws-projects-mutate-create-symlink-root",
    "115-ws-projects-mutate-create-relative-root",
  ].map((name): [string, string] => [
    name,
    "a later capture of the same build, from another environment: project-mutations.test.ts replays it in order",
  ]),
  ...DIFF_AND_VCS_FIXTURES.map((name): [string, string] => [name, DIFF_AND_VCS_STATE]),
]);

export function allows(entry: AllowedDifference, fixture: string, path: string): boolean {
  if (entry.fixture !== fixture) return false;
  return entry.path.endsWith("*") ? path.startsWith(entry.path.slice(0, -1)) : path === entry.path;
}
