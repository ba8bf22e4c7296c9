import { ConnectorError } from "@t3-connector/core";
import type { ListingEnvelope as ScopeEnvelope } from "./read-source.js";
import type { ShellView } from "./shell-view.js";

/**
 * Whether the environment shows `projectId`: allowed by its ACL and present (not deleted) in its
 * shell. Both "missing" and "outside the ACL" are the same answer on purpose: the refusal must not
 * tell a caller which projects exist beyond the ones it may see.
 */
export function showsProject(view: ShellView, projectId: string): boolean {
  return (
    view.allowedProjects.has(projectId) &&
    view.shell.projects.some((project) => project.id === projectId && !project.deletedAt)
  );
}

export function projectNotAvailable(projectId: string, alias: string): ConnectorError {
  return new ConnectorError(
    "out_of_scope",
    `project "${projectId}" is not available in environment "${alias}" (it does not exist there or is not an authorized project)`,
    { details: { projectId, environment: alias } },
  );
}

/**
 * After a sweep where no environment that answered shows the project: the call is refused,
 * naming who answered without it and who did not answer (with their codes), so the refusal never
 * claims absence from an environment that was not read.
 */
export function projectNotAvailableAnywhere(
  projectId: string,
  lacking: ReadonlySet<string>,
  envelope: ScopeEnvelope,
): ConnectorError {
  const refusedHere = envelope.environmentFailures.filter((failure) => lacking.has(failure.environmentId));
  const unanswered = envelope.environmentFailures.filter((failure) => !lacking.has(failure.environmentId));
  const answered = refusedHere.map((failure) => failure.alias).join(", ");
  const missing =
    unanswered.length === 0
      ? ""
      : `; did not answer: ${unanswered.map((failure) => `${failure.alias} (${failure.code})`).join(", ")}`;
  return new ConnectorError(
    "out_of_scope",
    `project "${projectId}" is not available in any environment that answered (${answered})${missing}. Pass the environment it belongs to.`,
    {
      details: {
        projectId,
        answered: refusedHere.map((failure) => failure.alias),
        failed: unanswered.map((failure) => ({ alias: failure.alias, code: failure.code })),
      },
    },
  );
}
