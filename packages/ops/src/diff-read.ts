/**
 * `diff <ref>` and `worktree <ref>`: the thread resolved as every ops read resolves it, then the
 * read tools `t3_diff` (every page, so the operator gets the whole diff) and `t3_worktree`.
 */
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";
import { runQuery } from "./run-query.js";

export interface DiffOptions {
  runId?: string;
  /** The whole thread instead of one run. */
  thread?: boolean;
}

interface DiffPage {
  files: Record<string, unknown>[];
  nextCursor?: string;
}

/** Pages no diff needs more of (2,000 files take about 20): a guard against a looping cursor. */
const MAX_PAGES = 1000;

export async function readDiff(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: DiffOptions = {},
): Promise<Record<string, unknown>> {
  const { env, thread } = await resolveThread(environments, reference, environment);
  const input = {
    threadId: thread.id,
    ...(options.thread === true ? { scope: "thread" } : {}),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
  };
  const first = (await runQuery(environments, env.config.alias, "diff", input)) as DiffPage &
    Record<string, unknown>;
  const files = [...first.files];
  let cursor = first.nextCursor;
  for (let pages = 1; cursor !== undefined && pages < MAX_PAGES; pages += 1) {
    const page = (await runQuery(environments, env.config.alias, "diff", { ...input, cursor })) as DiffPage;
    files.push(...page.files);
    cursor = page.nextCursor;
  }
  const { nextCursor: _paged, ...rest } = first;
  return { ...rest, files, truncated: files.some((file) => file.truncated === true) };
}

export async function readWorktree(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
): Promise<Record<string, unknown>> {
  const { env, thread } = await resolveThread(environments, reference, environment);
  return (await runQuery(environments, env.config.alias, "worktree", { threadId: thread.id })) as Record<
    string,
    unknown
  >;
}
