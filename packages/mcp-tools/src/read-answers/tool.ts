import type * as z from "zod";
import type { ReadSource } from "./read-source.js";

/**
 * One read tool as both servers answer it: its name, title, contract and answer, over a data
 * source. Each server adds its description, annotations and (the bridge) `leaseId`.
 */
export interface SharedReadTool<Name extends string, Input extends z.ZodObject, Output extends z.ZodObject> {
  readonly name: Name;
  /** Short English title for people, the same on both servers. */
  readonly title: string;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  answer(source: ReadSource, input: z.output<Input>, signal: AbortSignal): Promise<z.input<Output>>;
}

export function defineSharedReadTool<
  Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodObject,
>(tool: SharedReadTool<Name, Input, Output>): SharedReadTool<Name, Input, Output> {
  return tool;
}
