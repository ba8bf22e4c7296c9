import type { SharedReadTool } from "@t3-connector/mcp-tools/read-answers";
import type * as z from "zod";
import { contextReadSource } from "./context-read-source.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS, type ReadToolDefinition } from "./read-tool.js";

/**
 * A read tool whose name, title, contract and answer are shared with the write bridge's leased
 * read of the same name: the read server adds its description and answers over its own context.
 */
export function servedSharedReadTool<
  Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodObject,
>(shared: SharedReadTool<Name, Input, Output>, description: string): ReadToolDefinition<Name, Input, Output> {
  return defineReadTool({
    name: shared.name,
    title: shared.title,
    description,
    inputSchema: shared.inputSchema,
    outputSchema: shared.outputSchema,
    annotations: READ_ONLY_ANNOTATIONS,
    handler: (context, input, extra) => shared.answer(contextReadSource(context), input, extra.signal),
  });
}
