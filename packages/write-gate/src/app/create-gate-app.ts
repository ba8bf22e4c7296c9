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
import { type Clock, ConnectorError, type ErrorCode } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import type { FanOutDeadlines } from "@t3-connector/core/fanout";
import { EnrollmentCode } from "@t3-connector/core/passkeys";
import type { WriteEngine } from "@t3-connector/write-engine/engine";
import { Hono, type MiddlewareHandler } from "hono";
import { GateApprovalDesk, type Inventory, type ProjectWriteFacts } from "../approval/index.js";
import type { AuditEvent, AuditLog } from "../audit/index.js";
import { GateEvents } from "../events/gate-events.js";
import { type InboxReader, inboxReader } from "../inbox/inbox-reader.js";
import { type DecisionOutcome, OwnerDecisions } from "../inbox/owner-decisions.js";
import { type ThreadDiffReader, threadDiffReader } from "../inbox/thread-diff-reader.js";
import { GateLeaseKeeper } from "../lease/lease-keeper.js";
import { loadPageAssets, type PageAssets } from "../page/assets.js";
import { CREDENTIALS_FILE, Enrollment, Passkeys } from "../passkeys/index.js";
import { RemotePasskeys } from "../passkeys/remote-passkeys.js";
import {
  AddressBudget,
  hostGuard,
  loopbackGuard,
  securityHeaders,
  stateChangeGuard,
} from "../security/index.js";
import { eventStream } from "./event-stream.js";
import { inboxRoutes } from "./routes/inbox-routes.js";
import { leaseRoutes } from "./routes/lease-routes.js";
import { passkeyRoutes } from "./routes/passkey-routes.js";
import { type RelayHandler, relayRoute } from "./routes/relay-route.js";
import { remoteApprovalRoutes } from "./routes/remote-approval-routes.js";
import { requestRoutes } from "./routes/request-routes.js";
import type { GateParts } from "./routes/route-kit.js";
import { stateRoutes } from "./routes/state-routes.js";
import type { StartupWarnings } from "./startup-warnings.js";
import { type RowNames, writeRow } from "./write-rows.js";

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
  /** Reads what the page says of a named project write (`registryProjectWriteFacts(registry)`). */
  readonly projectWriteFacts?: ProjectWriteFacts;
  readonly log?: (line: string) => void;
  readonly relay?: RelayHandler;
  /** Page routes per client address per minute. Default 60. */
  readonly rateLimitPerMinute?: number;
  /** Authenticated relay calls per client address per minute, a budget apart from the page's. Default 6000. */
  readonly relayRateLimitPerMinute?: number;
  /** Passkey enrollments and removals, denials and failed attempts are audited here when given. */
  readonly audit?: AuditLog;
  /** The environments' start-up findings, shown as a banner on the page. */
  readonly startupWarnings?: StartupWarnings;
  /** The event stream's keep-alive comment interval. Default 15 s (tests shorten it). */
  readonly eventPingIntervalMs?: number;
  /**
   * The person's inbox (ADR 0073): what waits on them, read from the registry, and their own
   * decisions sent through the engine. Absent: no `/inbox` (tests of the page alone).
   */
  readonly inbox?: {
    readonly registry: EnvironmentRegistry;
    readonly engine: Pick<WriteEngine, "dispatchOutcome">;
    readonly deadlines?: FanOutDeadlines;
    /** Told after each decision sent (or found sent before): the push's resolved event. */
    readonly onDecided?: (outcome: DecisionOutcome) => void;
  };
  /** Approval from afar (write config `remoteApproval`, ADR 0050): the page `serve --http` forwards. */
  readonly remoteApproval?: {
    readonly origin: string;
    readonly oauthStateDir: string;
    /** This boot's relay capability: `serve` presents it beside the client it names (ADR 0044). */
    readonly relayCapability?: string;
  };
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
  /** The inbox's reader and the owner's decisions, when `deps.inbox` was given. */
  readonly inbox?: InboxParts;
}

interface InboxParts {
  readonly reader: InboxReader;
  readonly diffs: ThreadDiffReader;
  readonly decisions: OwnerDecisions;
}

/** The HTTP status of each code a page route answers with; any other code answers 400. */
const STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, 401 | 403 | 404 | 409 | 410 | 413 | 429 | 500>>> = {
  origin_or_method_invalid: 403,
  body_too_large: 413,
  rate_limited: 429,
  too_many_streams: 429,
  client_budget_exceeded: 429,
  lease_limit_reached: 409,
  not_found: 404,
  thread_not_found: 404,
  environment_unknown: 404,
  credential_unknown: 404,
  request_invalid: 404,
  request_expired: 410,
  request_used: 410,
  request_denied: 410,
  request_superseded: 410,
  request_withdrawn: 410,
  too_many_requests: 429,
  unlock_required: 401,
  credential_store_invalid: 500,
};

export async function createGateApp(deps: GateAppDeps): Promise<GateApp> {
  const parts = await buildParts(deps);
  const app = new Hono();
  app.use(securityHeaders());
  app.use(loopbackGuard());
  app.use(hostGuard({ port: deps.port }));
  if (deps.relay !== undefined) {
    const perMinute = deps.relayRateLimitPerMinute ?? 6000;
    app.route("/", relayRoute(deps.relay, { clock: deps.clock, perMinute }));
  }
  // A GET, so it comes before the POST-only checks below; it has its own cross-site refusal.
  const ping = deps.eventPingIntervalMs === undefined ? {} : { pingIntervalMs: deps.eventPingIntervalMs };
  app.get("/api/events", eventStream({ port: deps.port, events: parts.events, ...ping }));
  const relayCapability = deps.remoteApproval?.relayCapability;
  const vouched = relayCapability === undefined ? {} : { relayCapability };
  const remote =
    deps.remoteApproval === undefined
      ? undefined
      : new RemotePasskeys({
          origin: deps.remoteApproval.origin,
          oauthStateDir: deps.remoteApproval.oauthStateDir,
        });
  if (remote !== undefined) {
    // Before the localhost page's checks: these routes pin their own origin, the public one.
    app.route(
      "/",
      remoteApprovalRoutes({ ...parts, remote, port: deps.port, clock: deps.clock, ...vouched }),
    );
  }
  const inbox = deps.inbox === undefined ? undefined : inboxParts(deps, parts);
  if (inbox !== undefined) {
    // Before the localhost page's checks too: the inbox answers both origins and checks its own.
    app.route(
      "/",
      inboxRoutes({
        ...inbox,
        localPasskeys: parts.passkeys,
        ...(remote === undefined ? {} : { remote: { origin: remote.origin, passkeys: remote } }),
        port: deps.port,
        clock: deps.clock,
        ...vouched,
      }),
    );
  }
  app.use("*", pageChecks(deps, await loadPageAssets()));
  for (const routes of [stateRoutes, requestRoutes, leaseRoutes, passkeyRoutes])
    app.route("/", routes(parts));
  app.notFound(() => {
    throw new ConnectorError("not_found", "no such page or route");
  });
  app.onError((error, c) => {
    if (error instanceof ConnectorError) {
      if (error.code === "credential_store_invalid") parts.log(`gate passkey store failed: ${error.message}`);
      // A budget refusal names its limit; no other detail reaches the page.
      const limit = error.code === "client_budget_exceeded" ? error.details?.limit : undefined;
      const named = typeof limit === "number" ? { limit } : {};
      return c.json({ error: error.code, ...named }, STATUS_BY_CODE[error.code] ?? 400);
    }
    parts.log(`gate page route failed: ${error instanceof Error ? error.name : "error"}`);
    return c.json({ error: "verification_failed" }, 400);
  });
  const { keeper, desk, passkeys, enrollment, events } = parts;
  return { app, keeper, desk, passkeys, enrollment, events, ...(inbox === undefined ? {} : { inbox }) };
}

/** The inbox's reader over the registry and the desk, and the owner's decisions over the engine. */
function inboxParts(deps: GateAppDeps, parts: GateParts): InboxParts {
  const inbox = deps.inbox;
  if (inbox === undefined) throw new Error("inboxParts needs deps.inbox");
  const reader = inboxReader({
    registry: inbox.registry,
    desk: parts.desk,
    clock: deps.clock,
    ...(inbox.deadlines === undefined ? {} : { deadlines: inbox.deadlines }),
  });
  const diffs = threadDiffReader({
    registry: inbox.registry,
    ...(inbox.deadlines === undefined ? {} : { deadlines: inbox.deadlines }),
  });
  const decisions = new OwnerDecisions({
    registry: inbox.registry,
    engine: inbox.engine,
    clock: deps.clock,
    audit: parts.audit,
    log: parts.log,
    ...(inbox.onDecided === undefined ? {} : { onDecided: inbox.onDecided }),
  });
  return { reader, diffs, decisions };
}

/** The passkeys, the lease keeper, the approval desk and the page's nudges, wired together. */
async function buildParts(deps: GateAppDeps): Promise<GateParts> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
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
    ...(deps.projectWriteFacts === undefined ? {} : { projectWriteFacts: deps.projectWriteFacts }),
    ...(deps.remoteApproval === undefined ? {} : { approvalOrigin: deps.remoteApproval.origin }),
  });
  const names: RowNames = {
    alias: (environmentId) => desk.environmentAlias(environmentId),
    threadTitle: (environmentId, threadId) => desk.threadTitle(environmentId, threadId),
  };
  keeper.onChange(({ lease, open }) =>
    events.publish({ type: "lease", data: { leaseId: lease.leaseId, state: open ? "open" : "closed" } }),
  );
  keeper.onWrite((write) => events.publish({ type: "write", data: { row: writeRow(write, names) } }));
  deps.startupWarnings?.onChange(() => events.publish({ type: "warnings", data: {} }));
  const enrollment = new Enrollment({
    passkeys,
    code: new EnrollmentCode(deps.enrollmentCode),
    clock: deps.clock,
    codeAddsPasskey: deps.enroll === true,
  });
  // A failed append closes every lease through the log's own hook; the page route still answers.
  const audit = (event: AuditEvent) => {
    deps.audit?.append(event).catch(() => undefined);
  };
  return {
    keeper,
    desk,
    passkeys,
    enrollment,
    events,
    names,
    audit,
    log,
    startupWarnings: deps.startupWarnings,
  };
}

/**
 * The person's stops and the page's own reading of the state spend no shared budget (ADR 0028):
 * whoever else spends the page's budget, Revoke all, End and the state the page shows still answer.
 * They only close leases or read memory, so an unbudgeted flood of them grants nothing.
 */
const UNBUDGETED_ROUTES: ReadonlySet<string> = new Set(["/api/state", "/api/revoke", "/api/leases/end"]);

/**
 * Every check runs before the budget is charged: a request another origin (or a rebound name)
 * sends is refused for free, so a flood of them cannot starve the page. The four static GETs are
 * not counted at all: they change nothing, come from memory, and a foreign page can request them
 * (an <img> sends no Origin), so counting them would let it block the page.
 */
function pageChecks(deps: GateAppDeps, assets: PageAssets): MiddlewareHandler {
  const pageBudget = new AddressBudget({ clock: deps.clock, limit: deps.rateLimitPerMinute ?? 60 });
  const stateChange = stateChangeGuard({ port: deps.port });
  return async function allowStaticGets(c, next) {
    const asset = c.req.method === "GET" ? assets.get(c.req.path) : undefined;
    if (asset !== undefined) return c.body(asset.body, 200, { "Content-Type": asset.contentType });
    return stateChange(c, async () => {
      if (!UNBUDGETED_ROUTES.has(c.req.path)) pageBudget.charge(c);
      await next();
    });
  };
}
