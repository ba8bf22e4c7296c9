import * as z from "zod";
import { READ_ONLY_ANNOTATIONS, type ReadToolDefinition } from "../../src/read-tool.js";

/** A stand-in read tool for tests about the tool list and start-up, never about a tool's behaviour. */
export function fakeTool(name: string, annotations: object = READ_ONLY_ANNOTATIONS): ReadToolDefinition {
  return {
    name,
    title: name,
    description: `stand-in for ${name}`,
    inputSchema: z.strictObject({}),
    outputSchema: z.strictObject({}),
    annotations: annotations as ReadToolDefinition["annotations"],
    handler: async () => ({}),
  };
}
