/** `thread <ref>` (and `read <ref>`): resolves the reference, then reads the thread as the read server's t3_thread does. */
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";
import { runQuery } from "./run-query.js";

export async function readThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: { maxCharacters?: number } = {},
): Promise<Record<string, unknown>> {
  const { env, thread, matchedBy } = await resolveThread(environments, reference, environment);
  const input = { threadId: thread.id, ...(options.maxCharacters === undefined ? {} : options) };
  const read = (await runQuery(environments, env.config.alias, "thread", input)) as Record<string, unknown>;
  return { ...read, matchedBy };
}
