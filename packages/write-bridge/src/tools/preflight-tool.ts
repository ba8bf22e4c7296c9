/**
 * `t3_preflight` (ADR 0075): would a launch or a message pass now, before the client asks the
 * person? A read: no lease, nothing sent or recorded. Relayed as the gate's `preflight` op, where
 * the default grant's ceiling is known and the engine judges the write with the send's own rules,
 * so the answer and a later send cannot disagree.
 */
import { PREFLIGHT_ACTIONS } from "@t3-connector/write-engine/actions";
import { RELAY_RESULTS } from "@t3-connector/write-engine/relay-contract";
import * as z from "zod";
import { defineBridgeTool, READ_ONLY } from "../bridge-tool.js";

export const PREFLIGHT_TOOL_NAME = "t3_preflight";

const WHAT_IT_ANSWERS =
  "Would this write pass now? action: thread.launch or thread.send; input: exactly the input you would give " +
  "t3_escrever_thread_launch or t3_escrever_thread_send; environment: required for a send, optional for a launch " +
  "(then every environment is judged). No lease needed and nothing is sent. Answers wouldPass, and reasons with the " +
  "codes the send itself would give: runtime_mode_above_lease (above the ceiling a lease approved with nothing " +
  "proposed gets), guard_refused with reason provider_not_ready, provider_model_unavailable, thread_pending_request, " +
  "thread_run_active, …; duplicates: active threads of the project on the same branch, worktree or title (a warning); " +
  "recommendation: for a launch, an environment where it would pass, and why.";

export const preflightTool = defineBridgeTool({
  name: PREFLIGHT_TOOL_NAME,
  title: "Check whether a launch or message would pass",
  description: WHAT_IT_ANSWERS,
  inputSchema: z.strictObject({
    action: z.enum(PREFLIGHT_ACTIONS),
    environment: z.string().trim().min(1).max(256).optional(),
    /** The operationId the send will use (a message's clientRequestId must equal it). */
    operationId: z.string().trim().min(1).max(256).optional(),
    input: z.record(z.string(), z.unknown()),
  }),
  outputSchema: RELAY_RESULTS.preflight,
  annotations: READ_ONLY,
  async handler(context, args, extra) {
    return context.relay.call(
      {
        op: "preflight",
        action: args.action,
        ...(args.environment === undefined ? {} : { environment: args.environment }),
        ...(args.operationId === undefined ? {} : { operationId: args.operationId }),
        input: extra.rawArguments.input,
      },
      extra.signal,
    );
  },
});
