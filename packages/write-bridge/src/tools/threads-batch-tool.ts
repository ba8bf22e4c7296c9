/**
 * `t3_escrever_threads_batch` (ADR 0074): one filing verb for up to 20 threads under one lease,
 * relayed as the gate's own `threads_batch` op, whose engine keeps the batch's manifest and sends
 * each item once as the catalogue's own write.
 */
import { THREADS_BATCH, writeEnvelopeSchema } from "@t3-connector/write-engine/actions";
import { RELAY_RESULTS } from "@t3-connector/write-engine/relay-contract";
import { defineBridgeTool } from "../bridge-tool.js";
import { absentAsNull, absentAsNullSchema } from "./absent-as-null.js";
import { writeToolAnnotations, writeToolRow } from "./write-tool-table.js";

const ROW = writeToolRow(THREADS_BATCH.action);

const WHAT_TO_DO =
  "Needs an open lease (t3_pedir_aprovacao) granting the verb's action (thread.pin, thread.snooze, …) on every thread. " +
  "input: {action, threads (1-20 ids), until (snooze only), batchId?}. Each item is its own write; read items[].state: " +
  "completed, refused (final, with code), uncertain (its answer was lost: the batch stopped there; settle it with " +
  "t3_reconciliar_escrita and its operationId, never with a new batch), not_attempted. Calling again with the same " +
  "batchId resumes: done items replay and nothing is sent twice.";

export const threadsBatchResultSchema = absentAsNullSchema(RELAY_RESULTS.threads_batch);

export const threadsBatchTool = defineBridgeTool({
  name: ROW.name,
  title: THREADS_BATCH.label,
  description: `${THREADS_BATCH.description} ${WHAT_TO_DO}`,
  inputSchema: writeEnvelopeSchema(THREADS_BATCH.inputSchema),
  outputSchema: threadsBatchResultSchema,
  annotations: writeToolAnnotations(ROW),
  async handler(context, envelope, extra) {
    const answer = await context.relay.call(
      {
        op: "threads_batch",
        leaseId: envelope.leaseId,
        environment: envelope.environment,
        operationId: envelope.operationId,
        input: extra.rawArguments.input,
      },
      extra.signal,
    );
    return absentAsNull(threadsBatchResultSchema, answer);
  },
});
