/**
 * Secret requests (newer T3 servers): the agent asks the person for a value — an API key, a
 * password — that T3 stores without it ever reaching a client. Like a pending runtime request it
 * needs a person, but it is answered only in T3's own app: no write of the connector answers it
 * and the value never travels through the connector. The state says so in `nextAction`.
 */
import { isNonBlankString } from "./text.js";
import type { ShellThreadInput, ThreadProjectionInput, TurnItemInput } from "./types.js";

/** A pending secret request, from the shell row or from the projection's timeline. */
export interface SecretRequestRef {
  secretRequestId: string | null;
  /** What is asked for (e.g. `GITHUB_TOKEN`), never a value. */
  name: string | null;
  since: string | null;
}

export const SECRET_REQUEST_KIND = "secret_request";
export const SECRET_REQUEST_REASON = "secret requested by the agent; answer it in T3 itself";
export const SECRET_REQUEST_NEXT_ACTION_MESSAGE =
  "Answer it in T3 itself; the value never travels through the connector.";

/** What the person does next about a pending secret request. Constant: there is no tool for it. */
export interface SecretRequestNextAction {
  type: "answer_in_t3";
  reason: "secret_request";
  message: typeof SECRET_REQUEST_NEXT_ACTION_MESSAGE;
}

export const SECRET_REQUEST_NEXT_ACTION: Readonly<SecretRequestNextAction> = Object.freeze({
  type: "answer_in_t3",
  reason: "secret_request",
  message: SECRET_REQUEST_NEXT_ACTION_MESSAGE,
});

/** The shell row's pending secret request, when the server reports one. */
export function shellSecretRequest(thread: ShellThreadInput): SecretRequestRef | null {
  const request = thread.pendingSecretRequest;
  if (!request) return null;
  return {
    secretRequestId: request.id ?? null,
    name: isNonBlankString(request.name) ? request.name : null,
    since: request.createdAt ?? null,
  };
}

function refOf(item: TurnItemInput): SecretRequestRef {
  // Both known spellings of the item: the simulator's `name`, upstream's `label` (ADR 0069).
  const name = isNonBlankString(item.name) ? item.name : isNonBlankString(item.label) ? item.label : null;
  return {
    secretRequestId: item.requestId ?? item.id ?? null,
    name,
    since: item.startedAt ?? null,
  };
}

/** The projection's pending `secret_request` items, in timeline order (deduplicated by id). */
export function projectionSecretRequests(projection: ThreadProjectionInput): SecretRequestRef[] {
  const seen = new Set<string>();
  const refs: SecretRequestRef[] = [];
  const items = [
    ...(projection.turnItems ?? []),
    ...(projection.visibleTurnItems ?? []).map((row) => row?.item ?? null),
  ];
  for (const item of items) {
    if (!item || item.type !== SECRET_REQUEST_KIND || item.secretStatus !== "pending") continue;
    const ref = refOf(item);
    const key = ref.secretRequestId ?? `#${refs.length}`;
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push(ref);
  }
  return refs;
}
