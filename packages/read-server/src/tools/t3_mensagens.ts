import type { ThreadProjectionInput } from "@t3-connector/core/state";
import {
  historyBounds,
  MESSAGES_LIMIT,
  MESSAGES_MAX_CHARACTERS,
  recentMessages,
} from "@t3-connector/core/state";
import * as z from "zod";
import { locateThread } from "../by-id/locate-thread.js";
import { readLocatedProjection } from "../by-id/thread-detail.js";
import {
  environmentDiscoverySchema,
  environmentTagSchema,
  historySchema,
  locatingEnvironmentInput,
} from "../by-id/thread-read-schema.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const messageSchema = z.strictObject({
  messageId: z.string().nullable(),
  role: z.string().nullable(),
  text: z.string(),
  truncated: z.boolean(),
  streaming: z.boolean(),
  createdAt: z.string().nullable(),
});

export const t3MensagensTool = defineReadTool({
  name: "t3_mensagens",
  title: "Read a thread's recent messages",
  description:
    "Returns the last messages of one thread (oldest first), each cut from its start. " +
    "Pass environment when you know it; without it the id is located across every environment, as in t3_thread. " +
    "For the thread's state and pending requests call t3_thread.",
  inputSchema: z.strictObject({
    environment: locatingEnvironmentInput,
    threadId: z.string().min(1),
    limit: z
      .number()
      .int()
      .min(MESSAGES_LIMIT.min)
      .max(MESSAGES_LIMIT.max)
      .optional()
      .describe(`How many of the latest messages (default ${MESSAGES_LIMIT.default})`),
    maxCharacters: z
      .number()
      .int()
      .min(MESSAGES_MAX_CHARACTERS.min)
      .max(MESSAGES_MAX_CHARACTERS.max)
      .optional()
      .describe(
        `Characters kept from the start of each message (default ${MESSAGES_MAX_CHARACTERS.default})`,
      ),
  }),
  outputSchema: z.strictObject({
    environment: environmentTagSchema,
    environmentDiscovery: environmentDiscoverySchema.optional(),
    threadId: z.string(),
    messages: z.array(messageSchema),
    history: historySchema,
  }),
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
