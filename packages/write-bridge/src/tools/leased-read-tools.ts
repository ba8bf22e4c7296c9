/**
 * Reads under the write lease: the read server's own tools (mcp-tools' read-answers), the same
 * name, title, input (plus `leaseId`), output and answer, over the gate's leased read instead of
 * the read server's registry (ADR 0053, ADR 0072). Only the description says what the lease changes.
 */

import {
  type SharedReadTool,
  t3Atencao,
  t3Mensagens,
  t3Projetos,
  t3Thread,
  t3Threads,
} from "@t3-connector/mcp-tools/read-answers";
import { leasedInput } from "@t3-connector/mcp-tools/read-contracts";
import type * as z from "zod";
import { defineBridgeTool, READ_ONLY } from "../bridge-tool.js";
import { leasedReadSource } from "./leased-read.js";

const AFTER_LEASE_CLOSED = "On lease_closed call t3_pedir_aprovacao. This read never renews the lease.";
const ONE_ENVIRONMENT = "Reads the one environment of the lease named by environment.";

function leasedReadTool<Name extends string, Input extends z.ZodObject, Output extends z.ZodObject>(
  shared: SharedReadTool<Name, Input, Output>,
  description: string,
) {
  return defineBridgeTool({
    name: shared.name,
    title: shared.title,
    description: `${description} ${ONE_ENVIRONMENT} ${AFTER_LEASE_CLOSED}`,
    inputSchema: leasedInput(shared.inputSchema),
    outputSchema: shared.outputSchema,
    annotations: READ_ONLY,
    handler: (context, input, extra) =>
      shared.answer(
        leasedReadSource(context, (input as { leaseId: string }).leaseId),
        input as z.output<Input>,
        extra.signal,
      ),
  });
}

export const leasedProjectsTool = leasedReadTool(
  t3Projetos,
  "Lists the projects the write lease covers in one environment, with how many threads are running or need intervention.",
);

export const leasedThreadsTool = leasedReadTool(
  t3Threads,
  "Lists threads of the lease's projects (newest first), optionally of one project; includeArchived adds archived threads, marked archived. Use t3_thread for one thread's detail.",
);

export const leasedAttentionTool = leasedReadTool(
  t3Atencao,
  "Lists the lease's threads that need the user: a pending question or approval (answer it with t3_escrever_runtime_request_answer " +
    "or t3_escrever_runtime_request_approve, never with a send), or a failed run nobody settled.",
);

export const leasedThreadTool = leasedReadTool(
  t3Thread,
  "Reads one thread of the lease: state, active run, model and pending requests with the exact tool to answer each. " +
    "A thread outside the lease's projects is thread_not_found.",
);

export const leasedMessagesTool = leasedReadTool(
  t3Mensagens,
  "Returns the last messages of one thread of the lease, oldest first, each text cut to its start.",
);

export const LEASED_READ_TOOLS = [
  leasedProjectsTool,
  leasedThreadsTool,
  leasedAttentionTool,
  leasedThreadTool,
  leasedMessagesTool,
];
