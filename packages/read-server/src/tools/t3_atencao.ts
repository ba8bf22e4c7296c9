import { attentionThreads } from "@t3-connector/core/state";
import { t3AtencaoContract } from "@t3-connector/mcp-tools/read-contracts";
import { attentionRows } from "../listing/indexed-rows.js";
import { envelopeFields } from "../listing/paging.js";
import { withSecretsFromThreads } from "../listing/secrets-from-threads.js";
import { sweepShells, threadItems } from "../listing/shells.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

export const t3AtencaoTool = defineReadTool({
  name: "t3_atencao",
  title: "Threads needing attention",
  description:
    "Lists the visible threads that need the user: needs_intervention (a pending approval, question, plan or " +
    "usage limit) or a failed latest run nobody settled, newest first, across every environment unless " +
    "environment is given. Read t3_thread in the item's environment for the request content and the exact " +
    "write action that answers it (e.g. t3_escrever_runtime_request_answer through the write bridge). " +
    "With complete:false an empty list does not mean nothing needs attention.",
  ...t3AtencaoContract,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const now = context.clock.now();
    const { results, envelope } = await sweepShells(
      context,
      input.environment,
      extra.signal,
      (view) => attentionThreads(threadItems(view, attentionRows(view), now)),
      (value) => value.length,
      // A server whose rows name no secret request: read the running threads for one (ADR 0069).
      { enrich: withSecretsFromThreads },
    );
    const threads = attentionThreads(results.flatMap((result) => result.value));
    const { environment, ...scope } = envelopeFields(envelope);
    return {
      ...(environment === undefined ? {} : { environment }),
      total: threads.length,
      ...scope,
      threads,
    };
  },
});
