/**
 * @module The inbox's routes (ADR 0073), on the gate's localhost origin and, when approval from
 * afar is on, on the issuer's origin `serve --http` forwards `/inbox` from. The request's Origin
 * picks the passkey set: the gate's own on localhost, the sign-in set from afar. From afar the
 * list itself shows only after a passkey assertion (a view session of 10 minutes, kept per
 * client), since it names commands, paths and questions; on localhost, as the gate's page, it
 * shows at once. Every decision needs an assertion over the set's fingerprint, whatever the origin.
 * Ceremonies, view sessions and their budgets are kept per client (ADR 0044), so a stranger's
 * flood spends only its own share.
 */

import { randomBytes } from "node:crypto";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { edgeNames, PerClientBook } from "@t3-connector/core/http-edge";
import { INBOX_APPROVAL_DECISIONS } from "@t3-connector/core/state";
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { InboxReader } from "../../inbox/inbox-reader.js";
import { MAX_DECISIONS_PER_SET, type OwnerDecisions } from "../../inbox/owner-decisions.js";
import { DIFF_CURSOR, type ThreadDiffReader } from "../../inbox/thread-diff-reader.js";
import type { AssertionVerifier } from "../../passkeys/remote-passkeys.js";
import { AddressBudget, clientKey, originIs, pageOrigin } from "../../security/index.js";
import { INBOX_PAGE_CSS, INBOX_PAGE_HTML, INBOX_PAGE_JS } from "../inbox-page.js";
import { parsedBody } from "./route-kit.js";

const opaqueId = z.string().min(1).max(256);
const webauthnResponse = z.looseObject({ id: z.string().min(1).max(2048), type: z.literal("public-key") });
const answerValue = z.union([
  z.string().min(1).max(4000),
  z.array(z.string().min(1).max(4000)).min(1).max(32),
]);
const decisionSchema = z.strictObject({
  environmentId: opaqueId,
  threadId: opaqueId,
  requestId: opaqueId,
  decision: z.enum([...INBOX_APPROVAL_DECISIONS, "answer"]),
  answers: z.record(z.string().min(1).max(256), answerValue).nullable(),
});
const decisionsSchema = z.array(decisionSchema).min(1).max(MAX_DECISIONS_PER_SET);
const viewBody = z.strictObject({ viewToken: opaqueId.optional() });
/** A thread by its ids only: the gate finds it in T3's records, never by a path from here. */
const diffBody = z.strictObject({
  environmentId: opaqueId,
  threadId: opaqueId,
  scope: z.enum(["run", "thread"]).optional(),
  cursor: z.string().regex(DIFF_CURSOR).optional(),
  viewToken: opaqueId.optional(),
});
const optionsBody = z.strictObject({ decisions: decisionsSchema, viewToken: opaqueId.optional() });
const decideBody = z.strictObject({
  ticketId: opaqueId,
  decisions: decisionsSchema,
  response: webauthnResponse,
});
const unlockBody = z.strictObject({ ticketId: opaqueId, response: webauthnResponse });

const VIEW_SESSION_MS = 10 * 60_000;
const UNLOCK_TTL_MS = 120_000;

export interface InboxRouteParts {
  readonly reader: InboxReader;
  /** A thread's diff (ADR 0068, "The person's diff page"): the user's code, so a view session from afar. */
  readonly diffs: ThreadDiffReader;
  readonly decisions: OwnerDecisions;
  /** The gate's own passkeys, for its localhost page. */
  readonly localPasskeys: AssertionVerifier;
  /** The sign-in passkeys and their public origin, when approval from afar is on. */
  readonly remote?: {
    readonly origin: string;
    readonly passkeys: AssertionVerifier & { load(): Promise<void> };
  };
  readonly port: number;
  readonly clock: Clock;
  readonly relayCapability?: string;
}

interface Origin {
  readonly remote: boolean;
  readonly verifier: AssertionVerifier;
}

/**
 * Which page is calling: POST, JSON, and an Origin that is one of the two (the passkey set follows
 * from it); anything else is refused before any work, for free.
 */
function originReader(parts: InboxRouteParts): (c: Context) => Promise<Origin> {
  const local = edgeNames([], [pageOrigin(parts.port)]);
  const remote = parts.remote === undefined ? undefined : edgeNames([], [parts.remote.origin]);
  return async (c) => {
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (c.req.method === "POST" && type === "application/json") {
      if (originIs(c, local, "required")) return { remote: false, verifier: parts.localPasskeys };
      if (remote !== undefined && parts.remote !== undefined && originIs(c, remote, "required")) {
        await parts.remote.passkeys.load();
        return { remote: true, verifier: parts.remote.passkeys };
      }
    }
    throw new ConnectorError(
      "origin_or_method_invalid",
      "inbox calls come only as JSON POSTs from its own page",
    );
  };
}

export function inboxRoutes(parts: InboxRouteParts): Hono {
  const monotonic = () => parts.clock.monotonic();
  const unlocks = new PerClientBook<string>({ monotonic, ttlMs: UNLOCK_TTL_MS, perClient: 4, max: 256 });
  const views = new PerClientBook<true>({ monotonic, ttlMs: VIEW_SESSION_MS, perClient: 4, max: 256 });
  // Asking for a challenge or the list is what a stranger can repeat; each client has its own budget.
  const budget = new AddressBudget({ clock: parts.clock, limit: 60 });
  const client = (c: Context) => clientKey(c, parts.relayCapability);

  const originOf = originReader(parts);
  /** From afar the list needs a view session; a decision needs its own assertion either way. */
  const requireView = (c: Context, origin: Origin, token: string | undefined) => {
    if (!origin.remote) return;
    if (token === undefined || !views.has(token, client(c))) {
      throw new ConnectorError("unlock_required", "show the inbox with your passkey first", { status: 401 });
    }
  };

  const app = new Hono();
  app.get("/inbox", (c) => c.html(INBOX_PAGE_HTML));
  app.get("/inbox/page.js", (c) => c.body(INBOX_PAGE_JS, 200, { "Content-Type": "text/javascript" }));
  app.get("/inbox/page.css", (c) => c.body(INBOX_PAGE_CSS, 200, { "Content-Type": "text/css" }));
  app.post("/inbox/api/unlock/options", async (c) => {
    const origin = await originOf(c);
    budget.charge(c, client(c));
    if (!origin.verifier.hasAny()) {
      throw new ConnectorError("enrollment_required", "add a passkey on this device first");
    }
    const bytes = randomBytes(32);
    const ticketId = unlocks.add(client(c), bytes.toString("base64url"));
    return c.json({ ticketId, options: await origin.verifier.authenticationOptions(bytes) });
  });
  app.post("/inbox/api/unlock", async (c) => {
    const origin = await originOf(c);
    const { ticketId, response } = await parsedBody(c, unlockBody);
    const challenge = unlocks.take(ticketId, client(c));
    if (challenge === undefined) throw new ConnectorError("challenge_invalid", "ask for a new challenge");
    await origin.verifier.verifyAuthentication(response as unknown as AuthenticationResponseJSON, challenge);
    const viewToken = views.add(client(c), true);
    return c.json({ viewToken, expiresInMs: VIEW_SESSION_MS });
  });
  app.post("/inbox/api/items", async (c) => {
    const origin = await originOf(c);
    budget.charge(c, client(c));
    requireView(c, origin, (await parsedBody(c, viewBody)).viewToken);
    return c.json(await parts.reader());
  });
  app.post("/inbox/api/diff", async (c) => {
    const origin = await originOf(c);
    budget.charge(c, client(c));
    const body = await parsedBody(c, diffBody);
    requireView(c, origin, body.viewToken);
    const ask = {
      ...(body.scope === undefined ? {} : { scope: body.scope }),
      ...(body.cursor === undefined ? {} : { cursor: body.cursor }),
    };
    return c.json(await parts.diffs(body.environmentId, body.threadId, ask));
  });
  app.post("/inbox/api/options", async (c) => {
    const origin = await originOf(c);
    budget.charge(c, client(c));
    const body = await parsedBody(c, optionsBody);
    requireView(c, origin, body.viewToken);
    return c.json(await parts.decisions.challenge(body.decisions, origin.verifier, client(c)));
  });
  // Unbudgeted, like the localhost page's End: it needs a ticket only this client was given, and
  // an assertion; a stranger's flood of budgeted calls never stops the owner's decision.
  app.post("/inbox/api/decide", async (c) => {
    await originOf(c);
    const { ticketId, decisions, response } = await parsedBody(c, decideBody);
    const decided = await parts.decisions.decide(
      ticketId,
      decisions,
      response as unknown as AuthenticationResponseJSON,
      client(c),
    );
    return c.json(decided);
  });
  return app;
}
