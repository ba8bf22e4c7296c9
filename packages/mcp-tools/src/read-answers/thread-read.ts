import type { EnvironmentRef } from "@t3-connector/core/fanout";
import {
  type ShellThreadInput,
  THREAD_MAX_CHARACTERS,
  type ThreadProjectionInput,
  threadRead,
} from "@t3-connector/core/state";
import { type ThreadReadOutput, t3ThreadContract } from "../read-contracts/index.js";
import type { FetchedProjection, VisibleThread } from "./read-source.js";
import { defineSharedReadTool } from "./tool.js";

export interface ThreadDetailOptions {
  /** Limits `latestResponse` only (never request questions or options). */
  maxCharacters?: number;
}

/**
 * The body of `t3_thread`, from one shell row and its projection: the shell decides authorization
 * and the top-level fields, the projection adds pending requests and the detail. Pure, so the
 * batch builds exactly the same object.
 */
export function buildThreadRead(
  environment: Pick<EnvironmentRef, "alias" | "environmentId">,
  visible: VisibleThread,
  fetched: FetchedProjection,
  now: number,
  options: ThreadDetailOptions = {},
): ThreadReadOutput {
  // The wire rows are lenient (`options` is `unknown` there); the projection reads them structurally
  // and validates every field it exposes, so the cast only bridges the two declared shapes.
  const shell = visible.thread as ShellThreadInput;
  const projection = fetched.projection as ThreadProjectionInput;
  const read = threadRead(shell, projection, fetched.bounds, {
    now,
    project: visible.project ?? null,
    maxCharacters: options.maxCharacters ?? THREAD_MAX_CHARACTERS.default,
  });
  return { environment: { alias: environment.alias, environmentId: environment.environmentId }, ...read };
}

export const t3Thread = defineSharedReadTool({
  name: "t3_thread",
  title: "Read one thread",
  ...t3ThreadContract,
  async answer(source, input, signal) {
    const thread = await source.readThread(input.environment, input.threadId, signal);
    const options = input.maxCharacters === undefined ? {} : { maxCharacters: input.maxCharacters };
    const body = buildThreadRead(
      thread.environment,
      thread.visible,
      thread.fetched,
      thread.observedAt,
      options,
    );
    if (!thread.discovery) return body;
    const { environment, ...rest } = body;
    return { environment, environmentDiscovery: thread.discovery, ...rest };
  },
});
