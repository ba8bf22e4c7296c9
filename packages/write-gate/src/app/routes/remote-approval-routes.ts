/**
 * @module The approval page from afar (ADR 0050): `serve --http` forwards `/approve` on its public
 * origin to these routes over loopback. Unlike the localhost page, every decision here (approve,
 * deny, end a lease) needs a fresh passkey assertion from the sign-in passkeys, made on the public
 * origin with user verification: a link, a cookie or a reachable URL alone decides nothing. An
 * approval grants exactly what the page lists (the client's proposal as the gate ticked it) and its
 * challenge is bound to that scope's fingerprint; narrowing is the localhost page's.
 */
import { randomBytes } from "node:crypto";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { PerClientBook } from "@t3-connector/core/http-edge";
import { Hono } from "hono";
import { z } from "zod";
import type { RequestView } from "../../approval/index.js";
import type { GateLeaseKeeper } from "../../lease/lease-keeper.js";
import type { RemotePasskeys } from "../../passkeys/remote-passkeys.js";
import { AddressBudget, clientKey, stateChangeGuard, vouchedClient } from "../../security/index.js";
import { leaseStatus } from "../lease-status.js";
import { REMOTE_PAGE_CSS, REMOTE_PAGE_HTML, REMOTE_PAGE_JS } from "../remote-approval-page.js";
import { codeOf, type GateParts, jsonBody } from "./route-kit.js";

const opaqueId = z.string().min(1).max(256);
const webauthnResponse = z.looseObject({ id: z.string().min(1).max(2048), type: z.literal("public-key") });
const optionsBody = z.strictObject({
  requestId: opaqueId.optional(),
  leaseId: opaqueId.optional(),
  decision: z.enum(["approve", "deny", "end", "leases"]),
});
const approveBody = z.strictObject({ requestId: opaqueId, response: webauthnResponse });
const stopBody = z.strictObject({ ticketId: opaqueId, response: webauthnResponse });

/**
 * A deny, an end or a look at the open leases waiting for its assertion: what it is about, and the
 * challenge it was given.
 */
interface StopTicket {
  readonly kind: "deny" | "end" | "leases";
  readonly id: string;
  readonly challenge: string;
}

export interface RemoteApprovalParts extends GateParts {
  readonly remote: RemotePasskeys;
  readonly port: number;
  readonly clock: Clock;
  /** This boot's relay capability: with it `serve` names the client behind a proxy (ADR 0044). */
  readonly relayCapability?: string;
}

export function remoteApprovalRoutes(parts: RemoteApprovalParts): Hono {
  const { desk, keeper, remote, audit, log } = parts;
  const tickets = stopTicketBook(parts.clock);
  // Asking for a challenge is the only thing a stranger can repeat; a decision needs an assertion.
  // Per client: the one `serve` vouches for, so a flood behind a proxy spends only its own budget.
  const budget = new AddressBudget({ clock: parts.clock, limit: 30 });
  const app = new Hono();
  app.get("/approve", (c) => c.html(REMOTE_PAGE_HTML));
  app.get("/approve/page.js", (c) => c.body(REMOTE_PAGE_JS, 200, { "Content-Type": "text/javascript" }));
  app.get("/approve/page.css", (c) => c.body(REMOTE_PAGE_CSS, 200, { "Content-Type": "text/css" }));
  app.use("/approve/api/*", stateChangeGuard({ port: parts.port, origin: remote.origin }));
  // Only with a live request's id (the link's one handle), and the open leases only as who holds
  // them and until when: a stranger reaching the public URL learns nothing.
  app.post("/approve/api/view", jsonBody(z.strictObject({ requestId: opaqueId })), (c) =>
    c.json({ request: remoteView(desk.view(c.get("body").requestId)), leases: leaseRows(keeper) }),
  );
  app.post("/approve/api/options", jsonBody(optionsBody), async (c) => {
    budget.charge(c, vouchedClient(c, parts.relayCapability));
    const body = c.get("body");
    // A project folder or a forced delete is said only on the gate's own page: this page shows
    // no machine paths (a link may travel through a push service), so it cannot grant them.
    if (
      body.decision === "approve" &&
      desk.view(required(body.requestId, "requestId")).projectWrites.length > 0
    ) {
      throw new ConnectorError(
        "selection_invalid",
        "this request names a project folder or a forced project delete; approve it on the gate's own page, which shows them",
      );
    }
    await remote.load();
    if (!remote.hasAny()) {
      throw new ConnectorError(
        "enrollment_required",
        "add a passkey on this device first (t3-connector oauth enroll)",
      );
    }
    if (body.decision === "approve") {
      const requestId = required(body.requestId, "requestId");
      // Exactly what the page lists: the client's proposal as the gate ticked it, nothing narrowed.
      const selection = {
        environments: desk.view(requestId).preselected.environments.map((chosen) => ({
          environmentId: chosen.environmentId,
          projectIds: [...chosen.projectIds],
          actions: [...chosen.actions],
        })),
      };
      if (selection.environments.length === 0) {
        throw new ConnectorError("selection_invalid", "the client proposed nothing to approve here");
      }
      return c.json(await desk.challenge(requestId, selection, remote));
    }
    const id =
      body.decision === "leases"
        ? "leases"
        : required(body.decision === "deny" ? body.requestId : body.leaseId, "requestId or leaseId");
    if (body.decision !== "leases") requireLive(body.decision, id, parts);
    const bytes = randomBytes(32);
    const ticket = { kind: body.decision, id, challenge: bytes.toString("base64url") };
    const ticketId = tickets.add(clientKey(c, parts.relayCapability), ticket);
    return c.json({ ticketId, options: await remote.authenticationOptions(bytes) });
  });
  app.post("/approve/api/approve", jsonBody(approveBody), async (c) => {
    const { requestId, response } = c.get("body");
    const lease = await desk
      .approve(requestId, response as unknown as AuthenticationResponseJSON)
      .catch((error: unknown) => {
        audit({ event: "approval_failed", requestId, code: codeOf(error) });
        throw error;
      });
    log(
      `lease granted from afar: ${lease.leaseId.slice(0, 8)}… fingerprint ${lease.scopeFingerprint.slice(0, 16)}`,
    );
    // The approval's own assertion also shows the open leases, the new one among them, to end.
    return c.json({ ...leaseStatus(keeper, lease.leaseId), leases: leaseRows(keeper) });
  });
  mountAssertedRoutes(app, parts, tickets);
  return app;
}

/**
 * The decisions a ticket's assertion makes: deny a request, end a lease, or (the plain page, no
 * request link) list the open leases, each with End. A ticket serves only its own kind.
 */
function mountAssertedRoutes(
  app: Hono,
  parts: RemoteApprovalParts,
  tickets: PerClientBook<StopTicket>,
): void {
  const { desk, keeper, remote, audit, log } = parts;
  app.post("/approve/api/leases", jsonBody(stopBody), async (c) => {
    const { ticketId, response } = c.get("body");
    const ticket = tickets.take(ticketId);
    if (ticket?.kind !== "leases") throw new ConnectorError("challenge_invalid", "ask for a new challenge");
    await remote.verifyAuthentication(response as unknown as AuthenticationResponseJSON, ticket.challenge);
    return c.json({ leases: leaseRows(keeper) });
  });
  app.post("/approve/api/stop", jsonBody(stopBody), async (c) => {
    const { ticketId, response } = c.get("body");
    const ticket = tickets.take(ticketId);
    if (ticket === undefined || ticket.kind === "leases")
      throw new ConnectorError("challenge_invalid", "ask for a new challenge");
    await remote.verifyAuthentication(response as unknown as AuthenticationResponseJSON, ticket.challenge);
    if (ticket.kind === "deny") {
      desk.deny(ticket.id);
      audit({ event: "approval_denied", requestId: ticket.id });
      log(`approval request denied from afar: ${ticket.id.slice(0, 8)}…`);
      return c.json({ denied: true });
    }
    const ended = keeper.end(ticket.id, "ended");
    if (ended) log(`lease ended from afar: ${ticket.id.slice(0, 8)}…`);
    return c.json({ ended });
  });
}

/** Per client (ADR 0073): a stranger's flood fills only its own few slots, never the owner's. */
function stopTicketBook(clock: Clock): PerClientBook<StopTicket> {
  return new PerClientBook({ monotonic: () => clock.monotonic(), ttlMs: 120_000, perClient: 4, max: 256 });
}

/** A Deny ticket only for a live request, an End ticket only for an open lease (ADR 0073). */
function requireLive(kind: "deny" | "end", id: string, parts: Pick<GateParts, "desk" | "keeper">): void {
  if (kind === "deny") parts.desk.view(id);
  else if (parts.keeper.get(id) === null)
    throw new ConnectorError("lease_closed", "no open lease has this id");
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new ConnectorError("body_invalid", `${name} is required`);
  return value;
}

/**
 * The open leases as the page from afar lists them, to end one: holder, expiry and fingerprint (the
 * one the approval showed), nothing of the scope itself.
 */
function leaseRows(keeper: GateLeaseKeeper) {
  return keeper.list().map((lease) => ({
    leaseId: lease.leaseId,
    expiresAt: lease.expiresAt,
    scopeFingerprint: lease.scopeFingerprint,
    ...(lease.client === undefined ? {} : { client: lease.client }),
  }));
}

/**
 * What the page from afar shows of a request: the words and names a person decides on, never the
 * machine's paths (a link may travel through a push service).
 */
function remoteView(view: RequestView) {
  return {
    requestId: view.requestId,
    ...(view.client === undefined ? {} : { client: view.client }),
    ...(view.purpose === undefined ? {} : { purpose: view.purpose }),
    preselected: view.preselected,
    actionInfo: view.actionInfo.map((info) => ({ action: info.action, label: info.label })),
    scope: {
      runtimeMode: view.scope.runtimeMode,
      environments: view.scope.environments.map((grant) => ({
        alias: grant.alias,
        environmentId: grant.environmentId,
        projects: grant.projects.map((project) => ({ id: project.id, name: project.name })),
      })),
    },
    scopeFingerprint: view.scopeFingerprint,
    expiresAt: view.expiresAt,
    /** How many project writes it names: those are approved on the gate's own page only (ADR 0074). */
    projectWriteCount: view.projectWrites.length,
  };
}
