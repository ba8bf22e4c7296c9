/** `thread <ref>`: resolves the reference, then reads the thread as the read server's t3_thread does. */
import type { OpsEnvironments } from "./environments.js";
import { runQuery } from "./queries.js";
import { resolveThread } from "./references.js";

export async function readThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
): Promise<Record<string, unknown>> {
  const { env, thread, matchedBy } = await resolveThread(environments, reference, environment);
  const read = (await runQuery(environments, env.config.alias, "thread", { threadId: thread.id })) as Record<
    string,
    unknown
  >;
  return { ...read, matchedBy };
}
