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
import { type Clock, ConnectorError } from "@t3-connector/core";
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
import { errorAnswer } from "./error-answer.js";
import { eventStream } from "./event-stream.js";
import { changeRoutes } from "./routes/change-routes.js";
import { inboxRoutes } from "./routes/inbox-routes.js";
import { leaseRoutes } from "./routes/lease-routes.js";
import { passkeyRoutes } from "./routes/passkey-routes.js";
import { RELAY_RATE_LIMIT_PER_MINUTE, type RelayHandler, relayRoute } from "./routes/relay-route.js";
import { remoteApprovalRoutes } from "./routes/remote-approval-routes.js";
import { requestRoutes } from "./routes/request-routes.js";
import type { GateParts } from "./routes/route-kit.js";
import { stateRoutes } from "./routes/state-routes.js";
import type { StartupWarnings } from "./startup-warnings.js";
import { threadChangeReader } from "./thread-changes.js";
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
  /** The relay's budget, when the relay's door charges it too (instead of `relayRateLimitPerMinute`). */
  readonly relayBudget?: AddressBudget;
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
  /**
   * The change summary of each thread a request or lease names, read from T3 with the gate's own
   * token (ADR 0068). Absent: the pages show none.
   */
  readonly changes?: { readonly registry: EnvironmentRegistry; readonly deadlines?: FanOutDeadlines };
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

export async function createGateApp(deps: GateAppDeps): Promise<GateApp> {
  const parts = await buildParts(deps);
  const app = new Hono();
  app.use(securityHeaders());
  app.use(loopbackGuard());
  app.use(hostGuard({ port: deps.port }));
  if (deps.relay !== undefined) {
    const limit = deps.relayRateLimitPerMinute ?? RELAY_RATE_LIMIT_PER_MINUTE;
    app.route(
      "/",
      relayRoute(deps.relay, deps.relayBudget ?? new AddressBudget({ clock: deps.clock, limit })),
    );
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
  for (const routes of [stateRoutes, changeRoutes, requestRoutes, leaseRoutes, passkeyRoutes])
    app.route("/", routes(parts));
  app.notFound(() => {
    throw new ConnectorError("not_found", "no such page or route");
  });
  app.onError((error, c) => {
    const answer = errorAnswer(error, parts.log);
    return c.json(answer.body, answer.status);
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
  const changes =
    deps.changes === undefined
      ? undefined
      : threadChangeReader({
          registry: deps.changes.registry,
          clock: deps.clock,
          ...(deps.changes.deadlines === undefined ? {} : { deadlines: deps.changes.deadlines }),
        });
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
    ...(changes === undefined ? {} : { changes }),
  };
}

/**
 * The person's stops and the page's own reading of the state spend no shared budget (ADR 0028):
 * whoever else spends the page's budget, Revoke all, End and the state the page shows still answer.
 * They only close leases or read memory, so an unbudgeted flood of them grants nothing. The change
 * summaries the page reads after each state are unbudgeted too, so they never crowd out Approve:
 * each thread is read from T3 at most once per 15 s whoever asks (`thread-changes.ts`).
 */
const UNBUDGETED_ROUTES: ReadonlySet<string> = new Set([
  "/api/state",
  "/api/changes",
  "/api/revoke",
  "/api/leases/end",
]);

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
