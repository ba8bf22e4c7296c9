/**
 * `t3_pedir_aprovacao`: the open lease if there is one, else a fresh approval link for the human
 * (ADR 0017). The client may propose what the page ticks first (purpose, environments, projects,
 * actions, threads) and wait for the decision (`waitSeconds`, at most 300); `requestId` waits on
 * an existing request without creating a new one. The gate builds the scope from its live
 * inventory and refuses a proposal naming anything it does not list. When the client declared
 * URL-mode elicitation, the link is also presented to the person: to a 2025 client through
 * `elicitation/create`, to a 2026-07-28 client through an `input_required` round (ADR 0046).
 */
import { ConnectorError } from "@t3-connector/core";
import type { TimerHandle } from "@t3-connector/core/t3";
import { urlAnswer } from "@t3-connector/mcp-tools";
import { LEASE_DURATION_MINUTES, RUNTIME_MODES } from "@t3-connector/write-engine/actions";
import {
  MAX_PROJECT_WRITES,
  projectWriteAsk,
  RELAY_TIMEOUT_MS,
} from "@t3-connector/write-engine/relay-contract";
import * as z from "zod";
import { type BridgeContext, type BridgeToolExtra, defineBridgeTool } from "../bridge-tool.js";

/** How often a waiting call reports progress: well inside any client timeout worth having. */
export const APPROVAL_PROGRESS_MS = 5_000;

/** Well under the tunnel's 10-minute connection TTL; the request's own 120 s usually ends it first. */
export const MAX_WAIT_SECONDS = 300;
export const PURPOSE_MAX_CHARS = 280;

const coveredEnvironment = z.object({
  alias: z.string(),
  environmentId: z.string(),
  projectCount: z.number().int(),
  actionCount: z.number().int(),
});

const leftOutEnvironment = z.object({ alias: z.string(), environmentId: z.string(), reason: z.string() });

const DECISIONS = ["approved", "denied", "expired", "superseded", "used", "pending"] as const;
type Decision = (typeof DECISIONS)[number];

const approvalOutput = z.object({
  authorized: z.boolean(),
  /** What became of the request: `pending` while the human has not decided (or no wait was asked). */
  decision: z.enum(DECISIONS).optional(),
  leaseId: z.string().optional(),
  expiresAt: z.string().optional(),
  remainingMs: z.number().optional(),
  /** Compare it with the one the page shows: the same text means the same scope. */
  scopeFingerprint: z.string().optional(),
  requestId: z.string().optional(),
  approvalUrl: z.string().optional(),
  durationMinutes: z.number().int().optional(),
  environments: z.array(coveredEnvironment),
  unavailableEnvironments: z.array(leftOutEnvironment).optional(),
  /** How the client answered the URL elicitation, when the link was presented through it. */
  elicitation: z.enum(["accept", "decline", "cancel", "failed"]).optional(),
  nextStep: z.string(),
});

const name = z.string().trim().min(1).max(256);
const names = (what: string) => z.array(name).max(64).optional().describe(what);

const approvalInput = z.strictObject({
  purpose: z
    .string()
    .trim()
    .min(1)
    .max(PURPOSE_MAX_CHARS)
    .optional()
    .describe("Why you need to write, in one short sentence; the user sees it as your words."),
  environments: names("Environment aliases (or ids) you expect to write to; the page ticks them first."),
  projects: names("Project ids you expect to write to."),
  actions: names(
    "Catalogue action ids you need, e.g. thread.pin; destructive ones are only ticked if you name them.",
  ),
  threads: names("Thread ids you will touch; their projects are ticked."),
  projectWrites: z
    .array(projectWriteAsk)
    .min(1)
    .max(MAX_PROJECT_WRITES)
    .optional()
    .describe(
      "Each project create ({environment, action: project.create, workspaceRoot, createWorkspaceRootIfMissing?}), move ({environment, action: project.meta.update, projectId, workspaceRoot}) or forced delete ({environment, action: project.delete, projectId, force: true}) you will make, with its exact input: the page shows the folder (and whether it exists or would be made) or the thread count, and the lease admits only these inputs.",
    ),
  runtimeCeiling: z
    .enum(RUNTIME_MODES)
    .optional()
    .describe(
      "The highest runtime mode in which your writes may make any agent run (a thread you launch or switch, or one you message, resume or steer): approval-required (default) < auto-accept-edits < auto < full-access. A launch without a mode runs at it. The user may lower it.",
    ),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .optional()
    .describe(`Wait up to this many seconds (max ${MAX_WAIT_SECONDS}) for the user to approve or deny.`),
  requestId: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .optional()
    .describe("Keep waiting on this earlier request instead of creating a new one (with waitSeconds)."),
});
type ApprovalInput = z.output<typeof approvalInput>;

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? (value as Record<string, unknown>[]) : [];

const NEXT_STEP: Readonly<Record<Decision, string>> = {
  approved:
    "The user approved this request for the client process that created it; this process does not hold its lease " +
    "(a restarted bridge holds none of the old process's leases). Call t3_pedir_aprovacao {} to ask for your own.",
  pending:
    "Show approvalUrl to the user and compare scopeFingerprint with the page. To wait for their decision, call " +
    "t3_pedir_aprovacao with this requestId and waitSeconds; calling t3_pedir_aprovacao {} again answers this same " +
    "request, or the lease once approved: neither creates a new request.",
  denied:
    "The user denied this request: nothing was granted. Do not write; ask the user before requesting again.",
  expired:
    "The request expired before the user decided. Call t3_pedir_aprovacao again (without requestId) for a new link.",
  superseded:
    "A newer request or an open lease replaced this request. Call t3_pedir_aprovacao without requestId to get the lease or a new link.",
  used: "This request was already used and its lease is no longer open. Call t3_pedir_aprovacao without requestId.",
};

export const approvalTool = defineBridgeTool({
  name: "t3_pedir_aprovacao",
  title: "Request write approval",
  description:
    "Returns the open write lease (leaseId, environments, expiry) or, when none is open, an approval link for the user. " +
    "Say why (purpose) and propose what you need (environments, projects, actions as catalogue ids like thread.pin, threads): " +
    "the page ticks only that, the user decides. Names the gate does not list are refused with the valid ones. " +
    `With waitSeconds (max ${MAX_WAIT_SECONDS}) the call returns as soon as the user approves (with the lease) or denies; ` +
    "with requestId it keeps waiting on that request without creating a new one. It never renews a lease.",
  inputSchema: approvalInput,
  outputSchema: approvalOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(context, input, extra) {
    if (input.requestId !== undefined) {
      const proposed = (
        [
          "purpose",
          "environments",
          "projects",
          "actions",
          "threads",
          "projectWrites",
          "runtimeCeiling",
        ] as const
      ).filter((key) => input[key] !== undefined);
      if (proposed.length > 0) {
        throw new ConnectorError(
          "invalid_input",
          `requestId waits on an existing request; ${proposed.join(", ")} can only be given when creating one`,
        );
      }
      const answer = await relayApproval(
        context,
        { requestId: input.requestId },
        input.waitSeconds ?? 0,
        extra,
      );
      return answerOf(answer);
    }
    if (!asksToOpenLinks(context, extra)) {
      return answerOf(
        await relayApproval(context, proposalOf(input, context, extra), input.waitSeconds ?? 0, extra),
      );
    }
    return extra.client.era === "modern"
      ? approvalThroughInputRound(context, input, extra)
      : approvalThroughElicitation(context, input, extra);
  },
});

/** Whether the link can be put to the client (URL elicitation, or the 2026-07-28 input round). */
function asksToOpenLinks(context: BridgeContext, extra: BridgeToolExtra): boolean {
  if (!extra.client.urlElicitation) return false;
  return extra.client.era === "modern" || context.elicitsFromLegacyClients !== false;
}

/**
 * A 2025 client with URL elicitation: the link is presented first (`elicitation/create`, which
 * waits for the person's answer), then the wait runs on the request id; the client hears
 * `notifications/elicitation/complete` once the person has decided.
 */
async function approvalThroughElicitation(
  context: BridgeContext,
  input: ApprovalInput,
  extra: BridgeToolExtra,
): Promise<Record<string, unknown>> {
  const answer = await relayApproval(context, proposalOf(input, context, extra), 0, extra);
  if (answer.active === true) return answerOf(answer);
  const link = linkOf(answer);
  const elicitation = await presentLink(context, link, extra);
  const waitSeconds = input.waitSeconds ?? 0;
  if (elicitation !== "accept" || waitSeconds === 0) return { ...answerOf(answer), elicitation };
  const waited = await relayApproval(context, { requestId: link.requestId }, waitSeconds, extra);
  if (waited.decision !== "pending") await context.elicitationComplete(link.requestId).catch(() => undefined);
  return { ...answerOf({ ...answer, ...waited }), elicitation };
}

/** Where the person's answer to the link comes back in a 2026-07-28 retried call. */
const APPROVAL_INPUT_KEY = "approval";

/**
 * A 2026-07-28 client with URL elicitation. The first round asks the gate for a link and ends
 * with an `input_required` result that asks the person to open it; the request's public facts
 * travel in the sealed `requestState`. The client calls again with the person's answer: on
 * accept the wait (with progress) runs on the request id, as in the 2025 flow. A retried call
 * whose state did not come back (another process, expired) starts over with a new request.
 */
async function approvalThroughInputRound(
  context: BridgeContext,
  input: ApprovalInput,
  extra: BridgeToolExtra,
): Promise<Record<string, unknown>> {
  const first = extra.retry?.state;
  if (first === undefined) {
    const answer = await relayApproval(context, proposalOf(input, context, extra), 0, extra);
    if (answer.active === true) return answerOf(answer);
    const link = linkOf(answer);
    return (await extra.askToOpenUrl({
      key: APPROVAL_INPUT_KEY,
      message: LINK_MESSAGE,
      url: link.url,
      state: publicFacts(answer),
    })) as unknown as Record<string, unknown>;
  }
  const elicitation = urlAnswer(extra.retry, APPROVAL_INPUT_KEY) ?? "failed";
  const waitSeconds = input.waitSeconds ?? 0;
  if (elicitation !== "accept" || waitSeconds === 0) return { ...answerOf(first), elicitation };
  const waited = await relayApproval(context, { requestId: first.requestId }, waitSeconds, extra);
  return { ...answerOf({ ...first, ...waited }), elicitation };
}

/** What the client may see again of a pending request (nothing secret: the relay keeps the lease secret). */
function publicFacts(answer: Record<string, unknown>): Record<string, unknown> {
  const facts: Record<string, unknown> = {};
  for (const key of [
    "active",
    "decision",
    "requestId",
    "url",
    "expiresAt",
    "scopeFingerprint",
    "covered",
    "leftOut",
  ]) {
    if (answer[key] !== undefined) facts[key] = answer[key];
  }
  return facts;
}

const LINK_MESSAGE =
  "Approve write access to T3 with your passkey on the gate's page (it shows what was asked and lets you narrow it).";

function proposalOf(
  input: ApprovalInput,
  context: BridgeContext,
  extra: BridgeToolExtra,
): Record<string, unknown> {
  const client = context.holder ?? extra.client.info;
  return {
    ...(input.purpose === undefined ? {} : { purpose: input.purpose }),
    ...(input.environments === undefined ? {} : { environments: input.environments }),
    ...(input.projects === undefined ? {} : { projects: input.projects }),
    ...(input.actions === undefined ? {} : { actions: input.actions }),
    ...(input.threads === undefined ? {} : { threads: input.threads }),
    ...(input.projectWrites === undefined ? {} : { projectWrites: input.projectWrites }),
    ...(input.runtimeCeiling === undefined ? {} : { runtimeCeiling: input.runtimeCeiling }),
    ...(client === undefined ? {} : { client }),
    bridge: context.bridgeId,
  };
}

/**
 * One relay call; a wait gets its own deadline past the wait, so the relay does not cut it short.
 * While it waits, a progress notification every APPROVAL_PROGRESS_MS keeps a client that resets
 * its timeout on progress (the SDK's `resetTimeoutOnProgress`) from giving up at its default 60 s.
 */
async function relayApproval(
  context: BridgeContext,
  fields: Record<string, unknown>,
  waitSeconds: number,
  extra: BridgeToolExtra,
): Promise<Record<string, unknown>> {
  const waitMs = waitSeconds * 1000;
  const reports = waitMs > 0 ? reportProgress(context, extra, waitMs) : undefined;
  try {
    return await context.relay.call(
      { op: "request_approval", ...fields, ...(waitMs > 0 ? { waitMs } : {}) },
      extra.signal,
      { timeoutMs: waitMs + RELAY_TIMEOUT_MS },
    );
  } finally {
    reports?.cancel();
  }
}

/** A progress report every APPROVAL_PROGRESS_MS on the context's timers, each armed by the one before. */
function reportProgress(context: BridgeContext, extra: BridgeToolExtra, waitMs: number): TimerHandle {
  const started = context.now();
  let next: TimerHandle;
  const report = () => {
    const left = Math.max(0, Math.round((waitMs - (context.now() - started)) / 1000));
    void extra.progress(`waiting for the person to approve or deny on the gate's page (${left} s left)`);
    next = context.timers.setTimeout(report, APPROVAL_PROGRESS_MS);
  };
  next = context.timers.setTimeout(report, APPROVAL_PROGRESS_MS);
  return { cancel: () => next.cancel() };
}

function linkOf(answer: Record<string, unknown>): { requestId: string; url: string } {
  if (typeof answer.requestId !== "string" || typeof answer.url !== "string") {
    throw new ConnectorError("invalid_response", "the gate answered the approval request without a link");
  }
  return { requestId: answer.requestId, url: answer.url };
}

/** The link through URL elicitation; a client that fails it still gets the link in the result. */
async function presentLink(
  context: BridgeContext,
  link: { requestId: string; url: string },
  extra: BridgeToolExtra,
): Promise<"accept" | "decline" | "cancel" | "failed"> {
  try {
    return await context.elicitUrl(
      {
        message: LINK_MESSAGE,
        url: link.url,
        // The request id is unique per gate boot and opaque: the elicitation id the spec asks for.
        elicitationId: link.requestId,
      },
      extra.signal,
    );
  } catch {
    return "failed";
  }
}

function answerOf(answer: Record<string, unknown>): Record<string, unknown> {
  const decision = (DECISIONS as readonly unknown[]).includes(answer.decision)
    ? (answer.decision as Decision)
    : undefined;
  if (answer.active === true) {
    return {
      authorized: true,
      ...(decision === undefined ? {} : { decision }),
      leaseId: answer.leaseId,
      expiresAt: answer.expiresAt,
      remainingMs: answer.remainingMs,
      scopeFingerprint: answer.scopeFingerprint,
      ...(typeof answer.requestId === "string" ? { requestId: answer.requestId } : {}),
      environments: list(answer.environments).map(pickCovered),
      nextStep: "Use leaseId with the t3_escrever_* tools, naming the environment on every call.",
    };
  }
  const outcome = decision ?? "pending";
  if (outcome === "pending" && (typeof answer.requestId !== "string" || typeof answer.url !== "string")) {
    throw new ConnectorError("invalid_response", "the gate answered the approval request without a link");
  }
  return {
    authorized: false,
    decision: outcome,
    ...(typeof answer.requestId === "string" ? { requestId: answer.requestId } : {}),
    ...(outcome === "pending" ? { approvalUrl: answer.url } : {}),
    ...(typeof answer.expiresAt === "string" ? { expiresAt: answer.expiresAt } : {}),
    ...(typeof answer.scopeFingerprint === "string" ? { scopeFingerprint: answer.scopeFingerprint } : {}),
    durationMinutes: LEASE_DURATION_MINUTES,
    environments: list(answer.covered).map(pickCovered),
    ...(answer.leftOut === undefined
      ? {}
      : {
          unavailableEnvironments: list(answer.leftOut).map((left) => ({
            alias: left.alias,
            environmentId: left.environmentId,
            reason: left.reason,
          })),
        }),
    nextStep: NEXT_STEP[outcome],
  };
}

function pickCovered(grant: Record<string, unknown>) {
  return {
    alias: grant.alias,
    environmentId: grant.environmentId,
    projectCount: grant.projectCount,
    actionCount: grant.actionCount,
  };
}
