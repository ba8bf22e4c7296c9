/**
 * @module The person's own decisions on what waits (ADR 0073). One passkey assertion, user
 * verification required, covers exactly the submitted set: its challenge carries the set's
 * fingerprint, the ticket keeps the set, and a decide call must name the same set again. Each
 * decision is then read fresh (answered elsewhere or gone: reported, not sent) and handed to the
 * engine as the owner's write — journal, audit line, derived ids — under an operationId derived
 * from the request, so the same request is never sent twice whatever is submitted later. No lease
 * ceiling applies: the scope the engine is handed is exactly that thread and that action, in
 * full-access, because the person decided this one request themselves.
 */
import { createHash, randomBytes } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { type Clock, ConnectorError, isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { PerClientBook } from "@t3-connector/core/http-edge";
import {
  decisionSetFingerprint,
  type InboxDecision,
  inboxItemId,
  inboxOperationId,
  projectionTurnItems,
  requestContent,
  type ThreadProjectionInput,
  type UserInputContent,
} from "@t3-connector/core/state";
import { fetchThreadWindow } from "@t3-connector/core/t3";
import type { LeaseScope } from "@t3-connector/write-engine/actions";
import { type DispatchOutcome, dispatchFailureOf, type WriteEngine } from "@t3-connector/write-engine/engine";
import type { AuditEvent } from "../audit/index.js";
import type { AssertionVerifier } from "../passkeys/remote-passkeys.js";

/** How one decision ended; `sent` is the only one that reached T3 now. */
export type DecisionResult =
  | "sent"
  /** This gate sent it before (the journal's receipt): nothing was sent now. */
  | "already_sent"
  /** T3 shows the request resolved (in T3, by a client, or here before): nothing was sent. */
  | "already_answered"
  /** The thread or the request is not there any more: nothing was sent. */
  | "gone"
  /** Refused before or by T3 (the code says why): not applied. */
  | "refused"
  /** It may have reached T3; the journal settles it by reading, never by sending again. */
  | "uncertain";

export interface DecisionOutcome {
  readonly itemId: string;
  readonly environmentId: string;
  readonly threadId: string;
  readonly requestId: string;
  readonly decision: InboxDecision["decision"];
  readonly result: DecisionResult;
  readonly code: string | null;
}

/** At most this many decisions in one assertion: a page's worth, and a bound on the work. */
export const MAX_DECISIONS_PER_SET = 32;
const CEREMONY_TTL_MS = 120_000;

interface Ceremony {
  readonly decisions: readonly InboxDecision[];
  readonly fingerprint: string;
  readonly challenge: string;
  readonly verifier: AssertionVerifier;
}

export interface OwnerDecisionsOptions {
  readonly registry: EnvironmentRegistry;
  readonly engine: Pick<WriteEngine, "dispatchOutcome">;
  readonly clock: Clock;
  readonly audit: (event: AuditEvent) => void;
  readonly log: (line: string) => void;
  /** Told after each decision that was sent (the push's resolved event, the page's refresh). */
  readonly onDecided?: (outcome: DecisionOutcome) => void;
}

export class OwnerDecisions {
  readonly #ceremonies: PerClientBook<Ceremony>;

  constructor(private readonly options: OwnerDecisionsOptions) {
    this.#ceremonies = new PerClientBook({
      monotonic: () => options.clock.monotonic(),
      ttlMs: CEREMONY_TTL_MS,
      perClient: 4,
      max: 256,
    });
  }

  /**
   * The one challenge of a set: random bytes followed by the set's fingerprint, so the signed
   * client data names exactly what the person saw. Answers the ticket that decides it.
   */
  async challenge(
    decisions: readonly InboxDecision[],
    verifier: AssertionVerifier,
    client: string,
  ): Promise<{ ticketId: string; fingerprint: string; options: PublicKeyCredentialRequestOptionsJSON }> {
    checkSet(decisions);
    if (!verifier.hasAny()) {
      throw new ConnectorError("enrollment_required", "add a passkey on this device before deciding");
    }
    const fingerprint = decisionSetFingerprint(decisions);
    const bytes = Buffer.concat([randomBytes(16), createHash("sha256").update(fingerprint).digest()]);
    const challenge = bytes.toString("base64url");
    const ticketId = this.#ceremonies.add(client, { decisions, fingerprint, challenge, verifier });
    return { ticketId, fingerprint, options: await verifier.authenticationOptions(bytes) };
  }

  /**
   * Verifies the assertion over the ticket's challenge (the ticket is used up first, so a replay
   * or a failed attempt can never use it again), checks the set named now is the set it was bound
   * to, then reads and sends each decision in turn.
   */
  async decide(
    ticketId: string,
    decisions: readonly InboxDecision[],
    response: AuthenticationResponseJSON,
    client: string,
  ): Promise<{ fingerprint: string; outcomes: DecisionOutcome[] }> {
    const ceremony = this.#ceremonies.take(ticketId, client);
    if (ceremony === undefined) throw new ConnectorError("challenge_invalid", "ask for a new challenge");
    const fingerprint = decisionSetFingerprint(decisions);
    if (fingerprint !== ceremony.fingerprint) {
      this.options.audit({ event: "inbox_refused", code: "selection_invalid", setFingerprint: fingerprint });
      throw new ConnectorError(
        "selection_invalid",
        "the decisions are not the set the passkey was asked for",
      );
    }
    try {
      await ceremony.verifier.verifyAuthentication(response, ceremony.challenge);
    } catch (error) {
      const code = isConnectorError(error) ? error.code : "assertion_invalid";
      this.options.audit({ event: "inbox_refused", code, setFingerprint: fingerprint });
      throw error;
    }
    const outcomes: DecisionOutcome[] = [];
    // One after the other: a Codex process on 0.0.31 reads nothing else while a request waits.
    for (const decision of ceremony.decisions) outcomes.push(await this.#one(decision, fingerprint));
    return { fingerprint, outcomes };
  }

  async #one(decision: InboxDecision, fingerprint: string): Promise<DecisionOutcome> {
    const base = {
      itemId: inboxItemId(decision.environmentId, decision.threadId, decision.requestId),
      environmentId: decision.environmentId,
      threadId: decision.threadId,
      requestId: decision.requestId,
      decision: decision.decision,
    };
    const operationId = inboxOperationId(decision);
    let result: DecisionResult;
    let code: string | null = null;
    try {
      ({ result, code } = await this.#send(decision, operationId, fingerprint));
    } catch (error) {
      result = "refused";
      code = isConnectorError(error) ? error.code : "environment_unavailable";
    }
    const outcome = { ...base, result, code };
    this.options.audit({
      event: "inbox_decision",
      itemId: base.itemId,
      environmentId: base.environmentId,
      threadId: base.threadId,
      requestId: base.requestId,
      decision: base.decision,
      operationId,
      result,
      code,
      setFingerprint: fingerprint,
    });
    this.options.log(
      `inbox: ${base.decision} on ${base.requestId.slice(0, 8)}… ${result}${code ? ` (${code})` : ""}`,
    );
    if (result === "sent" || result === "already_sent") this.options.onDecided?.(outcome);
    return outcome;
  }

  /** The fresh read, then the engine's one send under the owner's scope for this request only. */
  async #send(
    decision: InboxDecision,
    operationId: string,
    fingerprint: string,
  ): Promise<{ result: DecisionResult; code: string | null }> {
    const handle = this.options.registry.resolve(decision.environmentId);
    const connected = await handle.connect();
    const window = await fetchThreadWindow(connected.http, decision.threadId).catch((error: unknown) => {
      if (isConnectorError(error) && error.code === "thread_not_found") return null;
      throw error;
    });
    if (window === null) return { result: "gone", code: "thread_not_found" };
    const projection = window.projection as ThreadProjectionInput;
    const request = (projection.runtimeRequests ?? []).find((row) => row.id === decision.requestId);
    if (request === undefined) return { result: "gone", code: "request_not_found" };
    if (request.status !== "pending") return { result: "already_answered", code: null };
    const question = request.kind === "user_input";
    if (question !== (decision.decision === "answer")) return { result: "refused", code: "decision_invalid" };
    if (question) {
      const { content } = requestContent(request, projectionTurnItems(projection));
      const problem = answerProblem(content?.type === "user_input" ? content : null, decision.answers);
      if (problem !== null) return { result: "refused", code: problem };
    }
    const projectId = projection.thread?.projectId ?? null;
    if (projectId === null) return { result: "gone", code: "thread_not_found" };
    const shell = await connected.http.getShell();
    const project = shell.projects.find((row) => row.id === projectId);
    const directory = project?.workspaceRoot;
    if (project === undefined || typeof directory !== "string")
      return { result: "gone", code: "project_not_found" };
    const action = question ? "runtime-request.answer" : "runtime-request.approve";
    const scope: LeaseScope = {
      scopeVersion: 2,
      runtimeMode: "full-access",
      environments: [
        {
          alias: handle.alias,
          environmentId: handle.environmentId,
          label: handle.alias,
          destination: `t3://${handle.environmentId}`,
          projects: [{ id: projectId, name: project.title, directory, workspaceRoots: [directory] }],
          actions: [action],
          readProjectIds: [projectId],
          threadIds: [decision.threadId],
        },
      ],
    };
    const now = { monotonic: this.options.clock.monotonic(), wall: this.options.clock.now() };
    const leaseId = `owner-${fingerprint.slice(0, 22)}`;
    const input = question
      ? { threadId: decision.threadId, requestId: decision.requestId, answers: decision.answers }
      : { threadId: decision.threadId, requestId: decision.requestId, decision: decision.decision };
    let outcome: DispatchOutcome;
    try {
      outcome = await this.options.engine.dispatchOutcome({
        leaseId,
        lease: {
          leaseId,
          scope,
          launched: new Set(),
          ended: new AbortController().signal,
          deadline: { monotonic: now.monotonic + CEREMONY_TTL_MS, wall: now.wall + CEREMONY_TTL_MS },
        },
        environment: handle.environmentId,
        operationId,
        action,
        input,
      });
    } catch (error) {
      outcome = dispatchFailureOf(error);
    }
    if (outcome.state === "completed")
      return { result: outcome.replayed ? "already_sent" : "sent", code: null };
    const code = isConnectorError(outcome.error) ? outcome.error.code : "dispatch_failed";
    if (outcome.state === "uncertain") return { result: "uncertain", code };
    // The journal holds this request's earlier answer under another decision: nothing was sent.
    if (code === "operation_conflict") return { result: "already_sent", code };
    return { result: "refused", code };
  }
}

function checkSet(decisions: readonly InboxDecision[]): void {
  if (decisions.length === 0 || decisions.length > MAX_DECISIONS_PER_SET) {
    throw new ConnectorError("selection_invalid", `a set holds 1 to ${MAX_DECISIONS_PER_SET} decisions`);
  }
  const seen = new Set<string>();
  for (const decision of decisions) {
    const key = `${decision.environmentId}\u0000${decision.threadId}\u0000${decision.requestId}`;
    if (seen.has(key)) throw new ConnectorError("selection_invalid", "one decision per request");
    seen.add(key);
    if ((decision.decision === "answer") !== (decision.answers !== null)) {
      throw new ConnectorError("selection_invalid", "answers go with an answer, and only with one");
    }
  }
}

/**
 * Whether the answers fit the question's constraints: every required question answered, an
 * option's label or value unless free text is allowed, one value unless several may be chosen.
 * Null when they fit; else the code the page shows.
 */
export function answerProblem(
  content: UserInputContent | null,
  answers: InboxDecision["answers"],
): string | null {
  if (content === null || answers === null) return "answer_invalid";
  const known = new Set(content.questions.map((question) => question.id));
  if (Object.keys(answers).some((id) => !known.has(id))) return "answer_invalid";
  for (const question of content.questions) {
    const given = answers[question.id];
    if (given === undefined) {
      if (question.required === false) continue;
      return "answer_required";
    }
    const values = typeof given === "string" ? [given] : given;
    if (values.length === 0 || (values.length > 1 && question.multiSelect !== true)) return "answer_invalid";
    const options = new Set(
      question.options.flatMap((option) => [option.label, option.value ?? option.label]),
    );
    const free = question.allowCustomAnswer === true || question.options.length === 0;
    for (const value of values) {
      if (value.trim().length === 0 || value.length > 4000) return "answer_invalid";
      if (!free && !options.has(value)) return "answer_invalid";
    }
  }
  return null;
}
