import type { ThreadProjectionInput } from "@t3-connector/core/state";
import {
  historyBounds,
  MESSAGES_LIMIT,
  MESSAGES_MAX_CHARACTERS,
  recentMessages,
} from "@t3-connector/core/state";
import { t3MensagensContract } from "@t3-connector/mcp-tools/read-contracts";
import { locateThread } from "../by-id/locate-thread.js";
import { readLocatedProjection } from "../by-id/thread-detail.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

export const t3MensagensTool = defineReadTool({
  name: "t3_mensagens",
  title: "Read a thread's recent messages",
  description:
    "Returns the last messages of one thread (oldest first), each cut from its start. " +
    "Pass environment when you know it; without it the id is located across every environment, as in t3_thread. " +
    "For the thread's state and pending requests call t3_thread.",
  ...t3MensagensContract,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const thread = await locateThread(context, input.environment, input.threadId, extra.signal);
    const fetched = await readLocatedProjection(context, thread, extra.signal);
    const messages = recentMessages(fetched.projection as ThreadProjectionInput, {
      limit: input.limit ?? MESSAGES_LIMIT.default,
      maxCharacters: input.maxCharacters ?? MESSAGES_MAX_CHARACTERS.default,
    });
    return {
      environment: { alias: thread.environment.alias, environmentId: thread.environment.environmentId },
      ...(thread.discovery ? { environmentDiscovery: thread.discovery } : {}),
      threadId: thread.visible.thread.id,
      messages,
      history: historyBounds(fetched.bounds),
    };
  },
});
