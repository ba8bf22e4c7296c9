/**
 * The read server's `ReadSource` (mcp-tools' read-answers): every environment in the caller's
 * ACL through its registry, sweeps over live mirrors or fresh shells, threads located across
 * environments. The five shared reads answer over it; the write bridge answers them over the gate.
 */
import type { ReadSource } from "@t3-connector/mcp-tools/read-answers";
import { locateThread } from "./by-id/locate-thread.js";
import { readLocatedProjection } from "./by-id/thread-detail.js";
import { listingIdentity } from "./listing/paging.js";
import { withSecretsFromConnection } from "./listing/secrets-from-threads.js";
import { sweepShells } from "./listing/shells.js";
import type { ReadContext } from "./read-context.js";

const sources = new WeakMap<ReadContext, ReadSource>();

export function contextReadSource(context: ReadContext): ReadSource {
  const known = sources.get(context);
  if (known !== undefined) return known;
  const source: ReadSource = {
    cursors: context.cursors,
    now: () => context.clock.now(),
    listingIdentity: (tool, filters, environment) => listingIdentity(context, tool, filters, environment),
    sweep: (environment, signal, project, countFound, { withArchive, withSecretRequests } = {}) =>
      sweepShells(context, environment, signal, project, countFound, {
        ...(withArchive === undefined ? {} : { withArchive }),
        ...(withSecretRequests ? { enrich: withSecretsFromConnection } : {}),
      }),
    async readThread(environment, threadId, signal) {
      const thread = await locateThread(context, environment, threadId, signal);
      const fetched = await readLocatedProjection(context, thread, signal);
      return {
        environment: thread.environment,
        visible: thread.visible,
        observedAt: thread.observedAt,
        ...(thread.discovery ? { discovery: thread.discovery } : {}),
        fetched,
      };
    },
  };
  sources.set(context, source);
  return source;
}
