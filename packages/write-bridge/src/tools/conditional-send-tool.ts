/**
 * `t3_escrever_thread_conditional_send`: "when run R ends, optionally switch the
 * model, then send". Relayed as the gate's own `conditional_send` op, never as two plain writes:
 * only the gate can re-check the run right before the send, which is what makes it safe.
 */
import { CONDITIONAL_SEND, writeEnvelopeSchema } from "@t3-connector/write-engine/actions";
import { RELAY_RESULTS } from "@t3-connector/write-engine/relay-contract";
import { defineBridgeTool } from "../bridge-tool.js";
import { absentAsNull, absentAsNullSchema } from "./absent-as-null.js";
import { writeToolAnnotations, writeToolRow } from "./write-tool-table.js";

const ROW = writeToolRow(CONDITIONAL_SEND.action);

const WHAT_TO_DO =
  "Needs an open lease (t3_pedir_aprovacao) granting thread.send (and thread.model-selection.set with modelSelection); " +
  "input.clientRequestId must equal operationId. Then act on state: " +
  "precondition_pending: nothing was sent, run afterRunId is still active; wait with t3_aguardar_thread, then call again with the same operationId. " +
  "precondition_failed: nothing was sent; read the thread again and decide with a new operationId. " +
  "failed: see failedStep and reason; repeating the same operationId only replays this answer. " +
  "uncertain: do not use a new operationId; call again with the same operationId and input (the gate settles the uncertain step: " +
  "T3 applies it at most once) or call t3_reconciliar_escrita with failedOperationId. " +
  "completed: sent exactly once; delivery.deliveredAs is started or queued_behind_active. " +
  "Always follow nextAction.";

/** The contract's answer, each field the gate may leave out answered as null (absent-as-null.ts). */
export const conditionalSendResultSchema = absentAsNullSchema(RELAY_RESULTS.conditional_send);

export const conditionalSendTool = defineBridgeTool({
  name: ROW.name,
  title: CONDITIONAL_SEND.label,
  description: `${CONDITIONAL_SEND.description} ${WHAT_TO_DO}`,
  inputSchema: writeEnvelopeSchema(CONDITIONAL_SEND.inputSchema),
  outputSchema: conditionalSendResultSchema,
  annotations: writeToolAnnotations(ROW),
  async handler(context, envelope, extra) {
    // As for the plain writes: the gate parses the client's input as sent (defaults included),
    // so both sides validate and hash the same thing.
    const answer = await context.relay.call(
      {
        op: "conditional_send",
        leaseId: envelope.leaseId,
        environment: envelope.environment,
        operationId: envelope.operationId,
        input: extra.rawArguments.input,
      },
      extra.signal,
    );
    return absentAsNull(conditionalSendResultSchema, answer);
  },
});
