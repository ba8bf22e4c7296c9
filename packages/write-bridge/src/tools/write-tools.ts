/**
 * The 42 `t3_escrever_<action>` tools, one per catalogue entry. Names, titles, input schemas and
 * destructive hints come from the catalogue table itself (ACTIONS, literal `toolName`s), so the
 * bridge, the gate and the operator CLI can never disagree on what a tool is called or accepts.
 */
import { ACTIONS, type AnyActionDefinition, writeEnvelopeSchema } from "@t3-connector/core/actions";
import * as z from "zod";
import { type BridgeToolDefinition, defineBridgeTool } from "../bridge-tool.js";

const HOW_TO_CALL =
  "Needs an open lease (t3_pedir_aprovacao) and the environment named explicitly. Use a fresh operationId per intended write; " +
  "repeating a call with the same operationId never sends twice. On lease_closed call t3_pedir_aprovacao; " +
  "on reconciliation_required do not retry, call t3_reconciliar_escrita.";

export const writeResultSchema = z.object({
  state: z.string(),
  operationId: z.string(),
  environmentId: z.string(),
  action: z.string(),
  /** True when the gate's journal already held this outcome and nothing was sent now. */
  replayed: z.boolean(),
  receipt: z.record(z.string(), z.unknown()).nullable(),
  derivedIds: z.record(z.string(), z.string()),
});

export function writeToolFor(entry: AnyActionDefinition): BridgeToolDefinition {
  return defineBridgeTool({
    name: entry.toolName,
    title: entry.title,
    description: `${entry.description} ${HOW_TO_CALL}`,
    inputSchema: writeEnvelopeSchema(entry.inputSchema),
    outputSchema: writeResultSchema,
    annotations: { ...entry.annotations },
    async handler(context, envelope, extra) {
      // The gate parses the action input again with the same catalogue schema; it gets the
      // client's input as sent (already validated here), so both sides hash the same thing.
      const rawInput = extra.rawArguments.input;
      const answer = await context.relay.call(
        {
          op: "dispatch",
          action: entry.action,
          leaseId: envelope.leaseId,
          environment: envelope.environment,
          operationId: envelope.operationId,
          input: rawInput,
        },
        extra.signal,
      );
      return {
        state: answer.state,
        operationId: answer.operationId,
        environmentId: answer.environmentId,
        action: answer.action,
        replayed: answer.replayed,
        receipt: answer.receipt ?? null,
        derivedIds: answer.derivedIds ?? {},
      };
    },
  });
}

/** In catalogue order. */
export const WRITE_TOOLS: readonly BridgeToolDefinition[] = ACTIONS.map((entry) => writeToolFor(entry));
