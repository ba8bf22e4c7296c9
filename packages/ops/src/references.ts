/**
 * Thread references (t3ctl's rule): an id, then an exact title, then a unique case-insensitive
 * substring of the title; optionally `alias:ref` to look in one environment only. Several matches
 * are listed, never guessed. Archived rows match by id only (they are not in listings).
 */
import { ConnectorError } from "@t3-connector/core";
import { isListableThread } from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";
import type { OpsEnvironments, ResolvedEnvironment } from "./environments.js";
import { errorFields } from "./error-fields.js";
import { type EnvironmentShell, readShell } from "./listing.js";
import { stateRow } from "./shell-rows.js";

export interface ResolvedThread {
  env: ResolvedEnvironment;
  thread: ThreadShell;
  /** How the reference matched. */
  matchedBy: "id" | "title" | "substring";
}

export interface ThreadCandidate {
  environment: string;
  threadId: string;
  title: string;
}

/** Splits `alias:ref` when the prefix names an environment; otherwise the whole text is the ref. */
export function splitReference(
  environments: OpsEnvironments,
  reference: string,
): { environment?: string; ref: string } {
  const colon = reference.indexOf(":");
  if (colon > 0) {
    const prefix = reference.slice(0, colon);
    if (environments.find(prefix) !== undefined)
      return { environment: prefix, ref: reference.slice(colon + 1) };
  }
  return { ref: reference };
}

function candidate(entry: { env: ResolvedEnvironment; thread: ThreadShell }): ThreadCandidate {
  return { environment: entry.env.config.alias, threadId: entry.thread.id, title: entry.thread.title };
}

/** Pure matching over already read shells; exported for tests of the rule itself. */
export function matchReference(shells: readonly EnvironmentShell[], ref: string): ResolvedThread {
  const text = ref.trim();
  if (text === "") throw new ConnectorError("invalid_input", "a thread reference must not be empty");
  const rows = shells.flatMap(({ env, shell }) =>
    [...shell.threads, ...(shell.archivedThreads ?? [])]
      .filter((thread) => !thread.deletedAt)
      .map((thread) => ({ env, thread })),
  );
  const byId = rows.filter((row) => row.thread.id === text);
  if (byId.length > 0) return pick(byId, text, "id");
  const listable = rows.filter((row) => isListableThread(stateRow(row.thread)));
  const byTitle = listable.filter((row) => row.thread.title === text);
  if (byTitle.length > 0) return pick(byTitle, text, "title");
  const lower = text.toLowerCase();
  const bySubstring = listable.filter((row) => row.thread.title.toLowerCase().includes(lower));
  if (bySubstring.length > 0) return pick(bySubstring, text, "substring");
  throw new ConnectorError(
    "thread_not_found",
    `no thread matches "${text}" (by id, title or part of a title)`,
    {
      details: { reference: text },
    },
  );
}

function pick(
  matches: { env: ResolvedEnvironment; thread: ThreadShell }[],
  ref: string,
  matchedBy: ResolvedThread["matchedBy"],
): ResolvedThread {
  const [first, ...rest] = matches;
  if (first !== undefined && rest.length === 0) return { ...first, matchedBy };
  const candidates = matches.map(candidate);
  const listed = candidates.map((c) => `${c.environment}:${c.threadId} "${c.title}"`).join(", ");
  throw new ConnectorError("ambiguous_thread", `"${ref}" matches ${candidates.length} threads: ${listed}`, {
    details: { reference: ref, candidates },
  });
}

/**
 * Resolves a reference across every environment (or the one named by `environment` or by an
 * `alias:` prefix). An environment that does not answer makes a cross-environment resolution
 * refuse rather than pick a match that might not be unique. With `archived`, the archived shell
 * snapshot is read too, so an archived thread can be named by its id.
 */
export async function resolveThread(
  environments: OpsEnvironments,
  reference: string,
  environment?: string,
  options: { archived?: boolean } = {},
): Promise<ResolvedThread> {
  environments.requireSome();
  const split = splitReference(environments, reference);
  const scope = environment ?? split.environment;
  const targets = scope === undefined ? environments.all() : [environments.resolve(scope)];
  const answers = await Promise.allSettled(targets.map((env) => readShell(env, options)));
  const shells: EnvironmentShell[] = [];
  const failed: { environment: string; code: string; message: string }[] = [];
  answers.forEach((answer, index) => {
    const env = targets[index] as ResolvedEnvironment;
    if (answer.status === "fulfilled") shells.push(answer.value);
    else failed.push({ environment: env.config.alias, ...errorFields(answer.reason) });
  });
  const only = answers[0];
  // One named environment: its own failure is the answer (unknown token, unreachable, ...).
  if (targets.length === 1 && only?.status === "rejected") throw only.reason;
  if (failed.length > 0) {
    throw new ConnectorError(
      "environment_unavailable",
      `cannot resolve "${split.ref}": ${failed.map((f) => `${f.environment} (${f.code})`).join(", ")} did not answer; name the environment as alias:ref`,
      { details: { failed } },
    );
  }
  return matchReference(shells, split.ref);
}
