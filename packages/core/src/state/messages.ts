import { MESSAGES_LIMIT, MESSAGES_MAX_CHARACTERS } from "./bounds.js";
import { keepStart } from "./text.js";
import { parseInstant } from "./time.js";
import type { MessageInput, ThreadProjectionInput } from "./types.js";

/** One message of `t3_mensagens`. */
export interface MessageItem {
  messageId: string | null;
  role: string | null;
  text: string;
  truncated: boolean;
  streaming: boolean;
  createdAt: string | null;
}

export interface RecentMessagesOptions {
  limit?: number;
  maxCharacters?: number;
}

function chronological(messages: readonly MessageInput[]): MessageInput[] {
  // Stable sort: messages without a parsable time keep their projection position among equals.
  return messages
    .map((message, index) => ({ message, index, ms: parseInstant(message.createdAt) }))
    .sort(
      (a, b) => (a.ms ?? Number.NEGATIVE_INFINITY) - (b.ms ?? Number.NEGATIVE_INFINITY) || a.index - b.index,
    )
    .map((entry) => entry.message);
}

/**
 * The last `limit` messages that have text, oldest first. Each text keeps its START (the first
 * `maxCharacters` characters, then "…"): a list of messages is read from the top.
 */
export function recentMessages(
  projection: ThreadProjectionInput,
  options: RecentMessagesOptions = {},
): MessageItem[] {
  const limit = options.limit ?? MESSAGES_LIMIT.default;
  const maxCharacters = options.maxCharacters ?? MESSAGES_MAX_CHARACTERS.default;
  const withText = (projection.messages ?? []).filter(
    (message): message is MessageInput & { text: string } =>
      typeof message.text === "string" && message.text.length > 0,
  );
  const ordered = chronological(withText) as Array<MessageInput & { text: string }>;
  return ordered.slice(Math.max(0, ordered.length - limit)).map((message) => {
    const cut = keepStart(message.text, maxCharacters);
    return {
      messageId: message.id ?? null,
      role: message.role ?? null,
      text: cut.text,
      truncated: cut.truncated,
      streaming: message.streaming === true,
      createdAt: message.createdAt ?? null,
    };
  });
}
