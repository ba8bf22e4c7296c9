import { attentionThreads } from "@t3-connector/core/state";
import { t3AtencaoContract } from "../read-contracts/index.js";
import { attentionRows } from "./indexed-rows.js";
import { envelopeFields } from "./paging.js";
import { threadItems } from "./shell-view.js";
import { defineSharedReadTool } from "./tool.js";

export const t3Atencao = defineSharedReadTool({
  name: "t3_atencao",
  title: "Threads needing attention",
  ...t3AtencaoContract,
  async answer(source, input, signal) {
    const now = source.now();
    const { results, envelope } = await source.sweep(
      input.environment,
      signal,
      (view) => attentionThreads(threadItems(view, attentionRows(view), now)),
      (value) => value.length,
      // A server whose rows name no secret request: the source reads them where it can (ADR 0069).
      { withSecretRequests: true },
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
