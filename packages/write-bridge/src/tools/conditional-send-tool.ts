/**
 * `t3_escrever_thread_conditional_send`: "when run R ends, optionally switch the
 * model, then send". Relayed as the gate's own `conditional_send` op, never as two plain writes:
 * only the gate can re-check the run right before the send, which is what makes it safe.
 */
import {
  CONDITIONAL_SEND,
  CONDITIONAL_SEND_STATES,
  type ConditionalSendStepName,
  writeEnvelopeSchema,
} from "@t3-connector/write-engine/actions";
import * as z from "zod";
import { defineBridgeTool } from "../bridge-tool.js";
import { writeToolAnnotations, writeToolFace } from "./write-tool-faces.js";

const FACE = writeToolFace(CONDITIONAL_SEND.action);

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

const STEP_NAMES = ["model-selection", "send"] as const satisfies readonly ConditionalSendStepName[];

const deliverySchema = z.object({
  observed: z.boolean(),
  messageId: z.string().nullable(),
  runId: z.string().nullable(),
  runStatus: z.string().nullable(),
  deliveredAs: z.enum(["started", "queued_behind_active"]),
});

export const conditionalSendResultSchema = z.object({
  state: z.enum(CONDITIONAL_SEND_STATES),
  operationId: z.string(),
  environmentId: z.string(),
  threadId: z.string(),
  afterRunId: z.string(),
  /** True when the gate read the answer back from its journal and nothing ran now. */
  replayed: z.boolean(),
  reason: z.string().nullable(),
  failedStep: z.enum(STEP_NAMES).nullable(),
  /** The step's own operationId: the one to reconcile when the state is `uncertain`. */
  failedOperationId: z.string().nullable(),
  /** Whether the message may have reached T3; null when the gate did not say. */
  sent: z.boolean().nullable(),
  detail: z.string().nullable(),
  delivery: deliverySchema.nullable(),
  nextAction: z.string(),
});

export const conditionalSendTool = defineBridgeTool({
  name: FACE.name,
  title: CONDITIONAL_SEND.label,
  description: `${CONDITIONAL_SEND.description} ${WHAT_TO_DO}`,
  inputSchema: writeEnvelopeSchema(CONDITIONAL_SEND.inputSchema),
  outputSchema: conditionalSendResultSchema,
  annotations: writeToolAnnotations(FACE),
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
    // Absent fields become null so the output schema lists every key a client may branch on.
    return {
      state: answer.state,
      operationId: answer.operationId,
      environmentId: answer.environmentId,
      threadId: answer.threadId,
      afterRunId: answer.afterRunId,
      replayed: answer.replayed,
      reason: answer.reason ?? null,
      failedStep: answer.failedStep ?? null,
      failedOperationId: answer.failedOperationId ?? null,
      sent: answer.sent ?? null,
      detail: answer.detail ?? null,
      delivery: answer.delivery ?? null,
      nextAction: answer.nextAction,
    };
  },
});
