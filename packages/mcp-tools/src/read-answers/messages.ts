import {
  historyBounds,
  MESSAGES_LIMIT,
  MESSAGES_MAX_CHARACTERS,
  recentMessages,
  type ThreadProjectionInput,
} from "@t3-connector/core/state";
import { t3MensagensContract } from "../read-contracts/index.js";
import { defineSharedReadTool } from "./tool.js";

export const t3Mensagens = defineSharedReadTool({
  name: "t3_mensagens",
  title: "Read a thread's recent messages",
  ...t3MensagensContract,
  async answer(source, input, signal) {
    const thread = await source.readThread(input.environment, input.threadId, signal);
    const messages = recentMessages(thread.fetched.projection as ThreadProjectionInput, {
      limit: input.limit ?? MESSAGES_LIMIT.default,
      maxCharacters: input.maxCharacters ?? MESSAGES_MAX_CHARACTERS.default,
    });
    return {
      environment: { alias: thread.environment.alias, environmentId: thread.environment.environmentId },
      ...(thread.discovery ? { environmentDiscovery: thread.discovery } : {}),
      threadId: thread.visible.thread.id,
      messages,
      history: historyBounds(thread.fetched.bounds),
    };
  },
});
