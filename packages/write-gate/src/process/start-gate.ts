/**
 * The gate process: the one place that owns the operate tokens, the journal, the audit log and
 * the relay capability. Started by `t3-connector-write gate`.
 *
 * Leftover `preparing` records (a gate killed between reserve and `uncertain`) are NOT refused on
 * start: `uncertain` is always durable before a send, so a `preparing` record is provably unsent,
 * and the engine adopts it when the client retries with the same operationId (one send, same
 * derived ids). Refusing them would only force the client to invent a new operationId. They are
 * counted on the gate's terminal, with the `uncertain` ones that need reconciliation.
 */

import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import type { WriteConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES, type RpcOptions } from "@t3-connector/core/environments";
import { IDLE_KEEP_ALIVE_MS } from "@t3-connector/core/http-edge";
import { generateEnrollmentCode } from "@t3-connector/core/passkeys";
import { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import {
  type JournalFs,
  LIFT_UNKNOWN_LOSS_COMMAND,
  openWriteEngine,
  type WorkspaceVerifier,
  type WriteEngine,
} from "@t3-connector/write-engine/engine";
import type { Hono } from "hono";
import { RELAY_RATE_LIMIT_PER_MINUTE, type RelayDoor, relayDoor, StartupWarnings } from "../app/index.js";
import {
  type AuditFs,
  type AuditLog,
  auditLeaseChanges,
  auditWitness,
  openAuditLog,
} from "../audit/index.js";
import type { LeaseKeeper } from "../contract.js";
import {
  generateCapability,
  OperationOwners,
  PreflightSlots,
  type RelayDeps,
  relayHandler,
  removeCapabilityFile,
  verifiedRelay,
  writeCapabilityFile,
} from "../relay/index.js";
import { AddressBudget, jsonAnswerHeaders } from "../security/index.js";
import { checkAndReport, type EnvironmentWarning } from "./check-environments.js";
import type { JournalHook } from "./crash-hook.js";
import type { GateParts, HumanSide, RelayHandler } from "./gate-parts.js";
import { createGateServer } from "./gate-server.js";
import { gateHumanSide } from "./human-side.js";
import { type StartSettlement, settleAtStart } from "./settle-at-start.js";

export interface StartGateOptions {
  readonly config: WriteConfig;
  readonly clock?: Clock;
  /** One line for the gate's terminal (stderr by default). */
  readonly log?: (line: string) => void;
  /**
   * The lines the person at the gate's terminal must see whatever the log level: the page's URL,
   * the enrollment code and open journal entries. Default: `log`.
   */
  readonly announce?: (line: string) => void;
  readonly fetch?: typeof fetch;
  /** Builds the page, passkeys, approvals and lease; default: the real page (`createGateApp`). */
  readonly humanSide?: (parts: GateParts) => HumanSide | Promise<HumanSide>;
  /** Close on SIGINT/SIGTERM (the CLI); default true. */
  readonly handleSignals?: boolean;
  /** Tests only: a file system that fails, to prove a journal or audit failure closes every lease. */
  readonly journalFs?: JournalFs;
  readonly auditFs?: AuditFs;
  /** Tests only: wraps the journal (the crash test's kill points). */
  readonly journalHook?: JournalHook;
  /** Tests only: the simulator's paths are canonical as given. */
  readonly verifyWorkspace?: WorkspaceVerifier;
  readonly rpc?: RpcOptions;
  /** `gate --enroll`: print the enrollment code (and accept it) even when a passkey is enrolled. */
  readonly enroll?: boolean;
  /** Try to settle the journal's uncertain writes before the start-up line; default true. */
  readonly settleAtStart?: boolean;
  /** Tests only: what the gate knows of each environment's command types (default: probe each). */
  readonly commandSupport?: CommandSupportCache;
}

export interface RunningGate {
  /** `http://localhost:<port>/`. */
  readonly url: string;
  readonly port: number;
  readonly bootId: string;
  readonly capabilityPath: string;
  readonly lease: LeaseKeeper;
  /** The write engine (journal and dispatcher) this gate opened for its state directory. */
  readonly engine: WriteEngine;
  readonly audit: AuditLog;
  /** Resolves when the gate has closed (by `close()` or a signal). */
  readonly closed: Promise<void>;
  /**
   * The start-up check of every environment (a wrong environmentId, a token that cannot operate),
   * run in the background after the gate listens; each warning is also announced on its terminal.
   */
  readonly environmentWarnings: Promise<readonly EnvironmentWarning[]>;
  /**
   * Set when the start-up check met an environment the gate must not serve (a T3 before protocol
   * 2, ADR 0069): the gate has then refused and closed itself, naming that environment.
   */
  readonly refusal: () => ConnectorError | undefined;
  close(reason?: string): Promise<void>;
}

/** The caller identity in every journal key: stable across boots (never the boot id). */
export function channelIdentity(config: WriteConfig): string {
  if (config.channel === undefined) return "local:t3-connector-write|loopback";
  return `canal:${config.channel.organization}|securetunnel:${config.channel.tunnelId}`;
}

/** Steps to undo on close or on a failed start, run newest first. */
class Cleanups {
  readonly #steps: Array<() => Promise<void>> = [];
  push(step: () => Promise<void>): void {
    this.#steps.push(step);
  }
  /** A step that runs after every other one, whenever it was added (signal handlers, the background check). */
  last(step: () => Promise<void>): void {
    this.#steps.unshift(step);
  }
  async run(): Promise<void> {
    for (const step of this.#steps.reverse()) await step().catch(() => undefined);
    this.#steps.length = 0;
  }
}

/** What the machine side opened before the human side exists. */
interface MachineSide {
  readonly registry: EnvironmentRegistry;
  readonly engine: WriteEngine;
  readonly audit: AuditLog;
}

interface Started {
  readonly options: StartGateOptions;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly announce: (line: string) => void;
  readonly bootId: string;
  readonly cleanups: Cleanups;
  readonly startupWarnings: StartupWarnings;
}

export async function startGate(options: StartGateOptions): Promise<RunningGate> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started: Started = {
    options,
    clock: options.clock ?? systemClock,
    log,
    announce: options.announce ?? log,
    bootId: randomUUID(),
    cleanups: new Cleanups(),
    startupWarnings: new StartupWarnings(),
  };
  // Set once the human side exists; a journal or audit failure before that has no lease to close.
  const keeper: { current: LeaseKeeper | null } = { current: null };
  try {
    // One cache for the page's inventory and the engine's own command-support rule.
    const commandSupport = options.commandSupport ?? new CommandSupportCache();
    const machine = await openMachineSide(started, keeper, commandSupport);
    const enrollmentCode = generateEnrollmentCode();
    const relay = lateRelay();
    const capability = generateCapability();
    // One budget for the relay, whether its door or its Hono route serves a call.
    const relayBudget = new AddressBudget({ clock: started.clock, limit: RELAY_RATE_LIMIT_PER_MINUTE });
    const human = await (options.humanSide ?? gateHumanSide)({
      config: options.config,
      port: options.config.port,
      clock: started.clock,
      registry: machine.registry,
      engine: machine.engine,
      commandSupport,
      audit: machine.audit,
      enrollmentCode,
      enroll: options.enroll === true,
      bootId: started.bootId,
      log,
      relay: relay.handler,
      relayBudget,
      relayCapability: capability,
      startupWarnings: started.startupWarnings,
    });
    if (human.close !== undefined) started.cleanups.push(() => human.close?.() ?? Promise.resolve());
    keeper.current = human.lease;
    const stopAuditingLeases = auditLeaseChanges(human.lease, machine.audit);
    started.cleanups.push(async () => stopAuditingLeases());
    const bound = await bindRelay(started, machine, human, { relay, capability, relayBudget });
    const port = await listen(started, human.app, bound.door);
    const capabilityPath = bound.capabilityPath;
    return await openForBusiness(started, machine, human, { port, capabilityPath, enrollmentCode });
  } catch (error) {
    await started.cleanups.run();
    throw error;
  }
}

/**
 * The registry, the engine (its journal checked whole: a damaged one rejects with
 * journal_damaged, so the gate does not start) and the audit log, the engine's witness.
 */
async function openMachineSide(
  started: Started,
  keeper: { readonly current: LeaseKeeper | null },
  commandSupport: CommandSupportCache,
): Promise<MachineSide> {
  const { options, clock, cleanups } = started;
  const { config } = options;
  const registry = new EnvironmentRegistry({
    environments: config.environments,
    requiredScopes: OPERATE_SCOPES,
    clock,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.rpc === undefined ? {} : { rpc: options.rpc }),
  });
  cleanups.push(() => registry.close());
  const engine = await openWriteEngine({
    stateDir: config.stateDir,
    registry,
    channel: channelIdentity(config),
    clock,
    commandSupport,
    ...(options.journalFs === undefined ? {} : { fs: options.journalFs }),
    ...(options.journalHook === undefined ? {} : { journalHook: options.journalHook }),
    ...(options.verifyWorkspace === undefined ? {} : { verifyWorkspace: options.verifyWorkspace }),
    onUnavailable: () => keeper.current?.closeAll("journal_failed"),
    // The audit log's chain and the generation its lines recorded are checked with the journal's
    // own files: an older journal put back, or a journal deleted with its marker, does not open.
    witness: auditWitness(config.stateDir),
    onMigrated: ({ records, segments }) =>
      started.announce(
        `t3-connector-write gate: journal migrated to the checksummed format (${records} record(s), ${segments} sealed segment(s))`,
      ),
  });
  cleanups.push(() => engine.close());
  const audit = await openAuditLog({
    stateDir: config.stateDir,
    clock,
    ...(options.auditFs === undefined ? {} : { fs: options.auditFs }),
    onFailure: () => keeper.current?.closeAll("audit_failed"),
    journalGeneration: () => engine.durableGeneration,
  });
  cleanups.push(() => audit.close());
  return { registry, engine, audit };
}

/** The app is built before the relay's parts exist, so its slot is bound late; until then it refuses. */
function lateRelay(): { handler: RelayHandler; bind(handler: RelayHandler): void } {
  let bound: RelayHandler = async (c) => c.json({ error: "gate_unavailable" }, 403);
  return {
    handler: (c, readBody) => bound(c, readBody),
    bind: (handler) => {
      bound = handler;
    },
  };
}

/**
 * Writes this boot's capability file and binds `POST /relay` to the engine, in the Hono app and
 * in the door the server puts before it; answers the file's path and the door.
 */
async function bindRelay(
  started: Started,
  machine: MachineSide,
  human: HumanSide,
  bound: { relay: ReturnType<typeof lateRelay>; capability: string; relayBudget: AddressBudget },
): Promise<{ capabilityPath: string; door: RelayDoor }> {
  const { stateDir } = started.options.config;
  const { engine, registry, audit } = machine;
  const { capability } = bound;
  const capabilityPath = await writeCapabilityFile(stateDir, capability);
  started.cleanups.push(() => removeCapabilityFile(stateDir));
  const deps: RelayDeps = {
    capability: () => capability,
    registry,
    dispatcher: engine,
    conditionalSend: (request) => engine.conditionalSend(request),
    threadsBatch: (request, dispatchItem) => engine.threadsBatch(request, dispatchItem),
    preflight: { judge: (request) => engine.preflight(request), slots: new PreflightSlots() },
    listUncertain: () => engine.listUncertain(),
    lease: human.lease,
    approvals: human.approvals,
    audit,
    clock: started.clock,
    ...(human.approvalFeed === undefined ? {} : { approvalFeed: human.approvalFeed }),
    owners: new OperationOwners(),
  };
  bound.relay.bind(relayHandler(deps));
  const door = relayDoor({
    port: started.options.config.port,
    relay: verifiedRelay(deps),
    budget: bound.relayBudget,
    headers: await jsonAnswerHeaders(),
    log: started.log,
  });
  return { capabilityPath, door };
}

/** Listens on 127.0.0.1 only; answers the port (the configured one, or the one the OS chose for 0). */
async function listen(started: Started, app: Hono, door: RelayDoor): Promise<number> {
  const { config } = started.options;
  const server = createGateServer(app, door);
  // Bridges and proxies reuse connections; the gate must not close one as they send on it.
  server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
    server.listen(config.port, "127.0.0.1", () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  started.cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  );
  return (server.address() as AddressInfo).port;
}

/**
 * Audits the start, stamps the journal's marker with the audit chain's anchor (ADR 0006 §14–§15),
 * handles signals, settles what it can, then tells the terminal: the URL, the enrollment code and
 * what the journal still holds open.
 */
async function openForBusiness(
  started: Started,
  machine: MachineSide,
  human: HumanSide,
  bound: { readonly port: number; readonly capabilityPath: string; readonly enrollmentCode: string },
): Promise<RunningGate> {
  const { options, bootId } = started;
  const { engine, audit, registry } = machine;
  await audit.append({
    event: "gate_started",
    bootId,
    environments: registry.environments.map((h) => h.environmentId),
  });
  await engine.stampMarker(audit.anchor());
  // Signals are handled before the URL is printed: whoever reacts to it can already stop us.
  const closing = closer(started, machine, human.lease);
  const settlement = (options.settleAtStart ?? true) ? await settleAtStart(engine, audit) : null;
  const url = `http://localhost:${bound.port}/`;
  await announceStart(started, engine, { url, settlement, enrollmentCode: bound.enrollmentCode, human });
  let refusal: ConnectorError | undefined;
  const refuse = (error: ConnectorError) => {
    refusal ??= error;
    started.announce(`t3-connector-write gate: REFUSED: ${error.code}: ${error.message}; closing`);
    void closing.close(error.code);
  };
  return {
    url,
    port: bound.port,
    bootId,
    capabilityPath: bound.capabilityPath,
    lease: human.lease,
    engine,
    audit,
    closed: closing.closed,
    close: closing.close,
    environmentWarnings: checkInBackground(started, registry, refuse),
    refusal: () => refusal,
  };
}

/** `close()` (once, however often called) and SIGINT/SIGTERM when the gate handles signals. */
function closer(
  started: Started,
  machine: MachineSide,
  lease: LeaseKeeper,
): { closed: Promise<void>; close: (reason?: string) => Promise<void> } {
  const { engine, audit } = machine;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | null = null;
  const close = (reason = "stopped") => {
    closing ??= (async () => {
      lease.closeAll("gate_stopped");
      await audit.append({ event: "gate_stopped", bootId: started.bootId, reason }).catch(() => undefined);
      if (!audit.failed) await engine.stampMarker(audit.anchor()).catch(() => undefined);
      await started.cleanups.run();
      resolveClosed();
    })();
    return closing;
  };
  if (started.options.handleSignals ?? true) {
    const onSignal = (signal: NodeJS.Signals) => {
      started.log(`t3-connector-write gate: ${signal}, closing`);
      void close(signal);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    started.cleanups.last(async () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    });
  }
  return { closed, close };
}

async function announceStart(
  started: Started,
  engine: WriteEngine,
  shown: {
    readonly url: string;
    readonly settlement: StartSettlement | null;
    readonly enrollmentCode: string;
    readonly human: HumanSide;
  },
): Promise<void> {
  const { announce, options } = started;
  const stats = engine.stats();
  const uncertain = (await engine.listUncertain()).length;
  announce(`t3-connector-write gate: listening on ${shown.url} (127.0.0.1 only)`);
  const remote = options.config.remoteApproval;
  // The code is a way in for whoever reads it: printed only when it is needed (ADR 0017).
  if (options.enroll === true) {
    announce(`t3-connector-write gate: one-time passkey enrollment code: ${shown.enrollmentCode}`);
  } else if (remote !== undefined) {
    // One person, one set: approvals from afar use the sign-in passkeys, so no second code here.
    announce(
      `t3-connector-write gate: approvals use the passkeys that sign clients in at ${remote.origin} ` +
        `(t3-connector oauth enroll adds one, for a phone too); no gate enrollment code is printed ` +
        "(start with `gate --enroll` to give the localhost page a passkey of its own)",
    );
  } else if (shown.human.enrolled?.() !== true) {
    announce(`t3-connector-write gate: one-time passkey enrollment code: ${shown.enrollmentCode}`);
  } else {
    announce(
      "t3-connector-write gate: a passkey is enrolled, so no enrollment code is printed " +
        "(add another from the page with an existing one, or start with `gate --enroll`)",
    );
  }
  const settlement = shown.settlement;
  if (settlement !== null && settlement.attempted > 0) {
    announce(
      `t3-connector-write gate: settled ${settlement.completed + settlement.refused} of ${settlement.attempted} ` +
        `uncertain write(s) at start (${settlement.completed} completed, ${settlement.refused} refused)`,
    );
  }
  if (stats.open > 0) {
    announce(
      `t3-connector-write gate: journal holds ${stats.open} open write(s) after the settle attempt: ${uncertain} uncertain ` +
        "(read only at start: a client repeating the write, or t3_reconciliar_escrita, under a lease that covers it " +
        "sends it again at most once; t3-connector-write reconcile --all-uncertain reads again), the rest preparing " +
        "(provably unsent; a retry with the same operationId sends once)",
    );
  }
  for (const loss of engine.unknownLossesInForce()) {
    announce(
      `t3-connector-write gate: the journal lost records it cannot name (${loss.files.join(", ")}): every operationId it ` +
        `does not hold is refused (operation_lost) until ${new Date(loss.until).toISOString()}. Check T3 for the writes ` +
        `made before the loss (\`t3-connector-write journal verify\` lists the ones the audit log names), then run ` +
        `\`${LIFT_UNKNOWN_LOSS_COMMAND}\` with the gate stopped`,
    );
  }
}

/** Not awaited: a slow or unreachable environment must not hold the gate's start. */
function checkInBackground(
  started: Started,
  registry: EnvironmentRegistry,
  refuse: (error: ConnectorError) => void,
): Promise<readonly EnvironmentWarning[]> {
  const checking = new AbortController();
  started.cleanups.last(async () => checking.abort());
  return checkAndReport(registry, checking.signal, (warnings) => {
    const refused = warnings.find((warning) => warning.refusal !== undefined)?.refusal;
    if (refused !== undefined) return refuse(refused);
    for (const warning of warnings) started.announce(warning.line);
    started.startupWarnings.add(warnings);
  });
}

/** A busy or forbidden port names the setting that chooses it, and the file it lives in. */
function listenError(error: NodeJS.ErrnoException, config: WriteConfig): unknown {
  if (error.code === "EADDRINUSE") {
    return new ConnectorError(
      "port_in_use",
      `port ${config.port} on 127.0.0.1 is already in use (another gate?); stop that process or change "port" in ${config.path}`,
      { details: { port: config.port, path: config.path } },
    );
  }
  if (error.code === "EACCES") {
    return new ConnectorError(
      "port_in_use",
      `port ${config.port} on 127.0.0.1 may not be opened by this user; choose a "port" above 1023 in ${config.path}`,
      { details: { port: config.port, path: config.path } },
    );
  }
  return error;
}
