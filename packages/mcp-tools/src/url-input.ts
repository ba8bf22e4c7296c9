import { randomBytes } from "node:crypto";
import {
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  type ServerContext,
} from "@modelcontextprotocol/server";

/**
 * Asking the person to open a link, the 2026-07-28 way: the tool's call ends with an
 * `input_required` result that embeds a URL-mode elicitation, and the client calls the tool again
 * with the person's answer (`inputResponses`) and the state the server handed out
 * (`requestState`). 2025-era clients get the push-style `elicitation/create` instead (the bridge
 * keeps that path); the 2026 revision has no server-to-client requests.
 */
export interface UrlInputRequest {
  /** The key the answer comes back under in `inputResponses`. */
  readonly key: string;
  readonly message: string;
  readonly url: string;
  /** What the retried call needs to carry on (sealed: the client cannot read or change it). */
  readonly state: Record<string, unknown>;
}

/** What a retried call brought back: the client's answers and the state the tool sealed. */
export interface RetriedCall {
  readonly responses: Readonly<Record<string, unknown>>;
  /** The tool's own state from the earlier round, verified; absent when none came back. */
  readonly state?: Record<string, unknown>;
}

export type UrlAnswer = "accept" | "decline" | "cancel";

interface SealedState {
  readonly tool: string;
  readonly state: Record<string, unknown>;
}

/**
 * `requestState` travels through the client and comes back as untrusted input, so it is sealed
 * with an HMAC under a key born with the process (the spec's MUST for state that steers what a
 * server does): a client can neither forge nor alter it, and a state minted for one tool is not
 * accepted by another. A process restart between two rounds makes the state unreadable: the
 * call then fails with the SDK's -32602 "Invalid or expired requestState", and the tool's next
 * call starts over. Rounds of one flow always reach the same process (stdio).
 */
const codec = createRequestStateCodec<SealedState>({
  key: randomBytes(32),
  ttlSeconds: 600,
  bind: (ctx) => ctx.mcpReq.method,
});

/** For `ServerOptions.requestState.verify`: refuses a state this process did not seal. */
export const verifyRequestState = (state: string, ctx: ServerContext) => codec.verify(state, ctx);

export async function urlInputRequired(
  tool: string,
  request: UrlInputRequest,
  ctx: ServerContext,
): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: { [request.key]: inputRequired.elicitUrl({ message: request.message, url: request.url }) },
    requestState: await codec.mint({ tool, state: request.state }, ctx),
  });
}

/** The answers and the verified state of a retried call to `tool`; `undefined` on a first call. */
export function retriedCall(tool: string, ctx: ServerContext): RetriedCall | undefined {
  const responses = ctx.mcpReq.inputResponses;
  const sealed = ctx.mcpReq.requestState<SealedState>();
  if (responses === undefined && sealed === undefined) return undefined;
  return {
    responses: responses ?? {},
    ...(sealed !== undefined && typeof sealed === "object" && sealed.tool === tool
      ? { state: sealed.state }
      : {}),
  };
}

/** How the client answered the URL elicitation under `key`, if it did. */
export function urlAnswer(call: RetriedCall | undefined, key: string): UrlAnswer | undefined {
  const answer = call?.responses[key] as { action?: unknown } | undefined;
  const action = answer?.action;
  return action === "accept" || action === "decline" || action === "cancel" ? action : undefined;
}
