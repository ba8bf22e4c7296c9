/**
 * The `t3_escrever_<action>` tools, one per catalogue entry. Titles, descriptions and input
 * schemas come from the catalogue itself (ACTIONS), so the bridge, the gate and the operator CLI
 * can never disagree on what an action accepts; the literal names, the destructive hints and the
 * notes for the model come from the bridge's own table (write-tool-table.ts), read by action id.
 */
import { ACTIONS, type AnyActionDefinition, writeEnvelopeSchema } from "@t3-connector/write-engine/actions";
import * as z from "zod";
import { type BridgeToolDefinition, defineBridgeTool } from "../bridge-tool.js";
import { writeToolAnnotations, writeToolRow } from "./write-tool-table.js";

const HOW_TO_CALL =
  "Needs an open lease (t3_pedir_aprovacao) and the environment named explicitly. Use a fresh operationId per intended write; " +
  "T3 never applies the same operationId twice. On lease_closed call t3_pedir_aprovacao. " +
  "t3_refused or action_unsupported: T3 refused it before running anything; nothing was applied and a repeat only replays the refusal. " +
  "reconciliation_required: the outcome is not known yet; repeat the very same call (same operationId and input) or call t3_reconciliar_escrita: " +
  "the gate reads T3 and, if the write is not there, sends the same command again under the same ids, so the answer is completed " +
  "(reconciled: true, applied once), a refusal (nothing applied), or reconciliation_required again with the reason (tell the user; never use a new operationId for it).";

export const writeResultSchema = z.object({
  state: z.string(),
  /** The lease the write was made under (ADR 0028). */
  leaseId: z.string(),
  operationId: z.string(),
  environmentId: z.string(),
  action: z.string(),
  /** True when the gate's journal already held this outcome and nothing was sent now. */
  replayed: z.boolean(),
  /** True when this call settled an uncertain write (found in T3, or sent again once under the same ids). */
  reconciled: z.boolean().optional(),
  receipt: z.record(z.string(), z.unknown()).nullable(),
  derivedIds: z.record(z.string(), z.string()),
  /** For a launch or delegated task: the mode its agent runs in (the lease's ceiling when the input named none). */
  runtimeMode: z.string().optional(),
});

export function writeToolFor(entry: AnyActionDefinition): BridgeToolDefinition {
  const row = writeToolRow(entry.action);
  return defineBridgeTool({
    name: row.name,
    // The catalogue's label and plain description, the very words the approval page shows.
    title: entry.label,
    description: [entry.description, row.notes, HOW_TO_CALL].filter(Boolean).join(" "),
    inputSchema: writeEnvelopeSchema(entry.inputSchema),
    outputSchema: writeResultSchema,
    // The relay client checked the gate's answer against the dispatch op's result schema; the
    // result below is typed to satisfy this tool's output schema, so it is not checked again.
    outputAlreadyChecked: true,
    annotations: writeToolAnnotations(row),
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
        leaseId: typeof answer.leaseId === "string" ? answer.leaseId : envelope.leaseId,
        operationId: answer.operationId,
        environmentId: answer.environmentId,
        action: answer.action,
        replayed: answer.replayed,
        ...(answer.reconciled === true ? { reconciled: true } : {}),
        receipt: answer.receipt,
        derivedIds: answer.derivedIds,
        ...(answer.runtimeMode === undefined ? {} : { runtimeMode: answer.runtimeMode }),
      } satisfies z.input<typeof writeResultSchema>;
    },
  });
}

/** In catalogue order. */
export const WRITE_TOOLS: readonly BridgeToolDefinition[] = ACTIONS.map((entry) => writeToolFor(entry));
