import { ConnectorError } from "@t3-connector/core";

/**
 * The refusals of a read by id. "Not found" and "outside the ACL" share one wording on purpose:
 * a different answer would tell a client that a thread it may not see exists.
 */

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

/** The thread is not visible in this one environment (missing, deleted or outside its ACL). */
export function threadNotFoundIn(threadId: string, alias: string): ConnectorError {
  return new ConnectorError(
    "thread_not_found",
    `thread "${threadId}" was not found in environment "${alias}": it does not exist there or is not in one of its authorized projects`,
    { details: { threadId, environments: [alias] } },
  );
}

/** Every environment answered and none shows the thread: a definitive absence. */
export function threadNotFoundAnywhere(threadId: string, aliases: readonly string[]): ConnectorError {
  return new ConnectorError(
    "thread_not_found",
    `thread "${threadId}" was not found in any environment (${quoted(aliases)}): it does not exist there or is not in one of their authorized projects`,
    { details: { threadId, environments: [...aliases] } },
  );
}

/**
 * The id exists in more than one environment; the connector never picks one. Environments that
 * did not answer are named too: the id may live there as well.
 */
export function ambiguousThread(
  threadId: string,
  aliases: readonly string[],
  missing: readonly MissingEnvironment[] = [],
): ConnectorError {
  const silent = missing.length > 0 ? `; ${describeMissing(missing)} did not answer and may hold it too` : "";
  return new ConnectorError(
    "ambiguous_thread",
    `thread "${threadId}" exists in more than one environment (${quoted(aliases)})${silent}; ask the user which one and pass environment`,
    {
      details: {
        threadId,
        environments: [...aliases],
        environmentFailures: missing.map((entry) => ({ ...entry })),
      },
    },
  );
}

export interface MissingEnvironment {
  alias: string;
  code: string;
}

/**
 * Some environment did not answer, so absence cannot be claimed, and a single match cannot be
 * trusted either: the id could also live in the one that did not answer.
 */
export function incompleteScope(
  threadId: string,
  foundIn: readonly string[],
  missing: readonly MissingEnvironment[],
): ConnectorError {
  const silent = describeMissing(missing);
  const seen =
    foundIn.length > 0
      ? `it was found in ${quoted(foundIn)}, but`
      : "it was not found in the environments that answered, but";
  return new ConnectorError(
    "incomplete_scope",
    `thread "${threadId}" could not be located: ${seen} ${silent} did not answer, so it may also be there; pass environment or retry`,
    {
      details: {
        threadId,
        foundIn: [...foundIn],
        environmentFailures: missing.map((entry) => ({ alias: entry.alias, code: entry.code })),
      },
    },
  );
}

function describeMissing(missing: readonly MissingEnvironment[]): string {
  return missing.map((entry) => `"${entry.alias}" (${entry.code})`).join(", ");
}
