/**
 * @module The gate's HTTP surface: the approval page, its JSON routes,
 * and a slot for the machine side's `POST /relay`. Every answer carries the security headers;
 * every request must name `Host: localhost:<port>`; everything but the four static GETs is a
 * POST with the gate's exact `Origin` and a JSON body, so no GET can change anything.
 *
 * @example
 * const gate = await createGateApp({ port, clock: systemClock, stateDir, enrollmentCode, inventory,
 *   relay: (c, readBody) => relay.handle(c, readBody) });
 * serve({ fetch: gate.app.fetch, hostname: "127.0.0.1", port });
 */
import { join } from "node:path";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { type Clock, ConnectorError, type ErrorCode } from "@t3-connector/core";
import { MAX_RELAY_BODY_BYTES } from "@t3-connector/write-engine/relay-contract";
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { cleanText, GateApprovalDesk, type Inventory } from "../approval/index.js";
import type { AuditEvent, AuditLog } from "../audit/index.js";
import { GateEvents } from "../events/index.js";
import { GateLeaseKeeper } from "../lease/index.js";
import { loadPageAssets } from "../page/index.js";
import { CREDENTIALS_FILE, Enrollment, Passkeys } from "../passkeys/index.js";
import {
  hostGuard,
  loopbackGuard,
  machineRouteGuard,
  RateBudget,
  readJsonBody,
  securityHeaders,
  stateChangeGuard,
} from "../security/index.js";
import { eventStream } from "./event-stream.js";
import { leaseStatus } from "./lease-status.js";
import * as bodies from "./schemas.js";
import { pageNotices, type StartupWarnings } from "./startup-warnings.js";
import { leaseHistoryRows, openLeaseRows, type RowNames, writeRow } from "./write-rows.js";

/** Page routes take at most 64 KiB; the relay's limit is the relay contract's. */
export const PAGE_BODY_LIMIT = 65_536;

/**
 * The machine side's handler for `POST /relay`. It authenticates the caller first and only then
 * calls `readBody`, which charges the relay's own rate budget and reads (capped) and parses the
 * body: an unauthenticated caller costs nothing and learns nothing about its body.
 */
export type RelayHandler = (c: Context, readBody: () => Promise<unknown>) => Response | Promise<Response>;

export interface GateAppDeps {
  readonly port: number;
  readonly clock: Clock;
  /** `<stateDir>/credentials.json` holds the passkeys. */
  readonly stateDir: string;
  /** Printed by the process on its own terminal; one use; this module never logs it. */
  readonly enrollmentCode: string;
  /** `gate --enroll`: the code may add a passkey even when one is enrolled (default: only the first). */
  readonly enroll?: boolean;
  /** Live inventory of the environments (`registryInventory(registry)` in the gate). */
  readonly inventory: Inventory;
  readonly log?: (line: string) => void;
  readonly relay?: RelayHandler;
  /** Page routes per client address per minute. Default 60. */
  readonly rateLimitPerMinute?: number;
  /** Authenticated relay calls per client address per minute, a budget apart from the page's. Default 6000. */
  readonly relayRateLimitPerMinute?: number;
  /** Passkey enrollments and removals, denials and failed attempts are audited here when given. */
  readonly audit?: AuditLog;
  /** The event stream's keep-alive comment interval. Default 15 s (tests shorten it). */
  readonly eventPingIntervalMs?: number;
  /** Environments the gate found it cannot operate at start, shown as a banner on the page. */
  readonly startupWarnings?: StartupWarnings;
}

export interface GateApp {
  /** Routes added to it later still come before the 404 (Hono's `notFound` is the catch-all). */
  readonly app: Hono;
  readonly keeper: GateLeaseKeeper;
  readonly desk: GateApprovalDesk;
  readonly passkeys: Passkeys;
  readonly enrollment: Enrollment;
  /** The nudges `GET /api/events` streams to the page. */
  readonly events: GateEvents;
}

/** Dead approval requests answer 410, a never-seen id 404; the rest by their nature. */
/** The HTTP status of each code a page route answers with; any other code answers 400. */
const STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, 403 | 404 | 410 | 413 | 429 | 500>>> = {
  origin_or_method_invalid: 403,
  body_too_large: 413,
  rate_limited: 429,
  too_many_streams: 429,
  not_found: 404,
  credential_unknown: 404,
  request_invalid: 404,
  request_expired: 410,
  request_used: 410,
  request_denied: 410,
  request_superseded: 410,
  too_many_requests: 429,
  credential_store_invalid: 500,
};

export async function createGateApp(deps: GateAppDeps): Promise<GateApp> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const assets = await loadPageAssets();
  const passkeys = await Passkeys.open({
    path: join(deps.stateDir, CREDENTIALS_FILE),
    port: deps.port,
    clock: deps.clock,
  });
  const keeper = new GateLeaseKeeper({ clock: deps.clock });
  const events = new GateEvents();
  const desk = new GateApprovalDesk({
    inventory: deps.inventory,
    keeper,
    passkeys,
    clock: deps.clock,
    port: deps.port,
    events,
  });
  const names: RowNames = {
    alias: (environmentId) => desk.environmentAlias(environmentId),
    threadTitle: (environmentId, threadId) => desk.threadTitle(environmentId, threadId),
  };
  keeper.onChange((lease) =>
    events.publish({ type: "lease", data: { state: lease === null ? "closed" : "open" } }),
  );
  keeper.onWrite((write) => events.publish({ type: "write", data: { row: writeRow(write, names) } }));
  deps.startupWarnings?.onChange(() => events.publish({ type: "warnings", data: {} }));
  // A failed append closes every lease through the log's own hook; the page route still answers.
  const audit = (event: AuditEvent) => deps.audit?.append(event).catch(() => undefined);
  const enrollment = Enrollment.withCode(passkeys, deps.enrollmentCode, deps.clock, deps.enroll === true);

  const app = new Hono();
  app.use(securityHeaders());
  app.use(loopbackGuard());
  app.use(hostGuard({ port: deps.port }));

  if (deps.relay !== undefined) {
    const relay = deps.relay;
    // The bridge's writes must not spend the page's budget, nor the page's the bridge's.
    const relayBudget = new RateBudget({ clock: deps.clock, limit: deps.relayRateLimitPerMinute ?? 6000 });
    app.use("/relay", machineRouteGuard());
    app.post("/relay", async (c) =>
      relay(c, async () => {
        relayBudget.charge(c);
        return readJsonBody(c, MAX_RELAY_BODY_BYTES);
      }),
    );
  }

  // A GET, so it comes before the POST-only checks below; it has its own cross-site refusal.
  app.get(
    "/api/events",
    eventStream({
      port: deps.port,
      events,
      ...(deps.eventPingIntervalMs === undefined ? {} : { pingIntervalMs: deps.eventPingIntervalMs }),
    }),
  );

  // Every check runs before the budget is charged: a request another origin (or a rebound name)
  // sends is refused for free, so a flood of them cannot starve the page or its Revoke. The four
  // static GETs are not counted at all: they change nothing, come from memory, and a foreign page
  // can request them (an <img> sends no Origin), so counting them would let it block the page.
  const pageBudget = new RateBudget({ clock: deps.clock, limit: deps.rateLimitPerMinute ?? 60 });
  const stateChange = stateChangeGuard({ port: deps.port });
  app.use("*", async function allowStaticGets(c, next) {
    const asset = c.req.method === "GET" ? assets.get(c.req.path) : undefined;
    if (asset !== undefined) return c.body(asset.body, 200, { "Content-Type": asset.contentType });
    return stateChange(c, async () => {
      pageBudget.charge(c);
      await next();
    });
  });

  const parse = async <S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> => {
    const result = schema.safeParse(await readJsonBody(c, PAGE_BODY_LIMIT));
    if (!result.success)
      throw new ConnectorError("body_invalid", "the request body is not the JSON this route takes");
    return result.data;
  };

  app.post("/api/state", async (c) => {
    await parse(c, bodies.emptyBody);
    const lease = leaseStatus(keeper);
    return c.json({
      enrolled: passkeys.hasAny(),
      passkeys: passkeys.list(),
      // The open lease's writes as the page lists them (alias, title, label), newest first.
      lease: lease.active ? { ...lease, writes: openLeaseRows(keeper, names) } : lease,
      leaseHistory: leaseHistoryRows(keeper.history(), names),
      pendingRequests: desk.pendingRequests(),
      gate: pageNotices(enrollment, deps.startupWarnings),
    });
  });

  app.post("/api/requests/view", async (c) => {
    const { requestId } = await parse(c, bodies.requestRef);
    return c.json(desk.view(requestId));
  });

  app.post("/api/requests/options", async (c) => {
    const { requestId, selection } = await parse(c, bodies.requestOptionsBody);
    return c.json(await desk.challenge(requestId, selection));
  });

  app.post("/api/requests/deny", async (c) => {
    const { requestId } = await parse(c, bodies.requestRef);
    // Denying grants nothing, so it needs no passkey (like revoke).
    desk.deny(requestId);
    audit({ event: "approval_denied", requestId });
    log(`approval request denied: ${requestId.slice(0, 8)}…`);
    return c.json({ denied: true });
  });

  app.post("/api/requests/approve", async (c) => {
    const { requestId, response } = await parse(c, bodies.approveBody);
    const lease = await desk
      .approve(requestId, response as unknown as AuthenticationResponseJSON)
      .catch((error: unknown) => {
        audit({ event: "approval_failed", requestId, code: codeOf(error) });
        throw error;
      });
    log(`lease granted: ${lease.leaseId.slice(0, 8)}… fingerprint ${lease.scopeFingerprint.slice(0, 16)}`);
    return c.json(leaseStatus(keeper));
  });

  app.post("/api/revoke", async (c) => {
    await parse(c, bodies.emptyBody);
    // Closing is always safe, so a revoke needs no passkey: anyone at the page may stop writes.
    keeper.closeAll("revoked");
    return c.json({ active: false });
  });

  app.post("/api/enrollment/options", async (c) => {
    const body = await parse(c, bodies.enrollmentOptionsBody);
    const name = cleanText(body.name, 64) ?? `Passkey ${passkeys.list().length + 1}`;
    const result = await ("code" in body
      ? enrollment.begin({ code: body.code, name })
      : enrollment.begin({
          stepUp: {
            ticketId: body.ticketId,
            response: body.response as unknown as AuthenticationResponseJSON,
          },
          name,
        })
    ).catch((error: unknown) => {
      audit({ event: "enrollment_failed", code: codeOf(error) });
      throw error;
    });
    return c.json(result);
  });

  app.post("/api/enrollment/finish", async (c) => {
    const { registrationId, response } = await parse(c, bodies.enrollmentFinishBody);
    const first = !passkeys.hasAny();
    const passkey = await enrollment
      .finish(registrationId, response as unknown as RegistrationResponseJSON)
      .catch((error: unknown) => {
        audit({ event: "enrollment_failed", code: codeOf(error) });
        throw error;
      });
    audit({ event: "passkey_enrolled", credentialId: passkey.id, first });
    events.publish({ type: "passkeys", data: {} });
    log(`passkey enrolled: ${passkey.id.slice(0, 8)}…`);
    return c.json({ passkey, passkeys: passkeys.list() });
  });

  app.post("/api/passkeys/step-up", async (c) => {
    const body = await parse(c, bodies.stepUpBody);
    const purpose = body.purpose === "enroll" ? "enroll" : `remove:${body.credentialId}`;
    return c.json(await enrollment.stepUpOptions(purpose));
  });

  app.post("/api/passkeys/remove", async (c) => {
    const { credentialId, ticketId, response } = await parse(c, bodies.removeBody);
    try {
      await enrollment.redeemStepUp(
        ticketId,
        `remove:${credentialId}`,
        response as unknown as AuthenticationResponseJSON,
      );
    } catch (error) {
      audit({ event: "passkey_removal_failed", code: codeOf(error) });
      throw error;
    }
    const removed = await passkeys.remove(credentialId);
    if (!removed) throw new ConnectorError("credential_unknown", "no passkey has this id");
    audit({ event: "passkey_removed", credentialId });
    events.publish({ type: "passkeys", data: {} });
    log(`passkey removed: ${credentialId.slice(0, 8)}…`);
    return c.json({ passkeys: passkeys.list() });
  });

  app.notFound(() => {
    throw new ConnectorError("not_found", "no such page or route");
  });

  app.onError((error, c) => {
    if (error instanceof ConnectorError) {
      if (error.code === "credential_store_invalid") log(`gate passkey store failed: ${error.message}`);
      return c.json({ error: error.code }, STATUS_BY_CODE[error.code] ?? 400);
    }
    log(`gate page route failed: ${error instanceof Error ? error.name : "error"}`);
    return c.json({ error: "verification_failed" }, 400);
  });

  return { app, keeper, desk, passkeys, enrollment, events };
}

/** The stable code of a failure, for the audit log (never its message). */
function codeOf(error: unknown): string {
  if (error instanceof ConnectorError) return error.code;
  return "verification_failed";
}
