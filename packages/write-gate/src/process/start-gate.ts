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
import { createAdaptorServer } from "@hono/node-server";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import type { WriteConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES, type RpcOptions } from "@t3-connector/core/environments";
import { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import {
  conditionalSend,
  createDispatcher,
  type Dispatcher,
  type WorkspaceVerifier,
} from "@t3-connector/write-engine/dispatch";
import {
  type Journal,
  type JournalFs,
  LIFT_UNKNOWN_LOSS_COMMAND,
  openJournal,
} from "@t3-connector/write-engine/journal";
import type { Context, Hono } from "hono";
import { StartupWarnings } from "../app/index.js";
import {
  type AuditFs,
  type AuditLog,
  auditLeaseChanges,
  auditWitness,
  openAuditLog,
} from "../audit/index.js";
import type { ApprovalDesk, LeaseKeeper } from "../contract.js";
import { generateEnrollmentCode } from "../passkeys/index.js";
import {
  generateCapability,
  relayHandler,
  removeCapabilityFile,
  writeCapabilityFile,
} from "../relay/index.js";
import { checkAndReport, type EnvironmentWarning } from "./check-environments.js";
import type { JournalHook } from "./crash-hook.js";
import { gateHumanSide } from "./human-side.js";
import { settleAtStart } from "./settle-at-start.js";

/** What the human side (page, passkeys, approvals, lease) gets to build itself from. */
export interface GateParts {
  readonly config: WriteConfig;
  readonly port: number;
  readonly clock: Clock;
  readonly registry: EnvironmentRegistry;
  /** Which actions each environment's T3 version can run (learned once per server version). */
  readonly commandSupport: CommandSupportCache;
  readonly audit: AuditLog;
  /** The one-time enrollment code printed on the gate's terminal. */
  readonly enrollmentCode: string;
  /** `gate --enroll`: the code may add a passkey even when one is enrolled. */
  readonly enroll: boolean;
  readonly bootId: string;
  readonly log: (line: string) => void;
  /** `POST /relay`'s handler, to mount in the app (bound once the dispatcher exists). */
  readonly relay: RelayHandler;
  /** Filled by the start-up check of the environments once it ends; the page shows them. */
  readonly startupWarnings: StartupWarnings;
}

export type RelayHandler = (c: Context, readBody: () => Promise<unknown>) => Promise<Response>;

export interface HumanSide {
  readonly lease: LeaseKeeper;
  readonly approvals: ApprovalDesk;
  /** The whole HTTP app, with `parts.relay` mounted at `POST /relay`. */
  readonly app: Hono;
  /** Whether a passkey is enrolled (the enrollment code is printed only while none is, or with --enroll). */
  readonly enrolled?: () => boolean;
  close?(): Promise<void>;
}

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
  readonly dispatcher: Dispatcher;
  readonly audit: AuditLog;
  /** Resolves when the gate has closed (by `close()` or a signal). */
  readonly closed: Promise<void>;
  /**
   * The start-up check of every environment (a wrong environmentId, a token that cannot operate),
   * run in the background after the gate listens; each warning is also announced on its terminal.
   */
  readonly environmentWarnings: Promise<readonly EnvironmentWarning[]>;
  close(reason?: string): Promise<void>;
}

/** The caller identity in every journal key: stable across boots (never the boot id). */
export function channelIdentity(config: WriteConfig): string {
  if (config.channel === undefined) return "local:t3-connector-write|loopback";
  return `canal:${config.channel.organization}|securetunnel:${config.channel.tunnelId}`;
}

export async function startGate(options: StartGateOptions): Promise<RunningGate> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const announce = options.announce ?? log;
  const bootId = randomUUID();
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
    cleanups.length = 0;
  };
  // Set once the human side exists; a journal or audit failure before that has no lease to close.
  let keeper: LeaseKeeper | null = null;
  try {
    const opened = await openJournal({
      stateDir: config.stateDir,
      clock,
      ...(options.journalFs === undefined ? {} : { fs: options.journalFs }),
      onUnavailable: () => keeper?.closeAll("journal_failed"),
      // The audit log's chain and the generation its lines recorded are checked with the journal's
      // own files: an older journal put back, or a journal deleted with its marker, does not open.
      witness: auditWitness(config.stateDir),
      // A damaged journal rejects here with journal_damaged (files, loss, way forward): no start.
      onMigrated: ({ records, segments }) =>
        announce(
          `t3-connector-write gate: journal migrated to the checksummed format (${records} record(s), ${segments} sealed segment(s))`,
        ),
    });
    cleanups.push(() => opened.close());
    const journal: Journal = options.journalHook?.(opened) ?? opened;
    const audit = await openAuditLog({
      stateDir: config.stateDir,
      clock,
      ...(options.auditFs === undefined ? {} : { fs: options.auditFs }),
      onFailure: () => keeper?.closeAll("audit_failed"),
      journalGeneration: () => opened.durableGeneration,
    });
    cleanups.push(() => audit.close());
    const registry = new EnvironmentRegistry({
      environments: config.environments,
      requiredScopes: OPERATE_SCOPES,
      clock,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.rpc === undefined ? {} : { rpc: options.rpc }),
    });
    cleanups.push(() => registry.close());

    const commandSupport = options.commandSupport ?? new CommandSupportCache();
    const enrollmentCode = generateEnrollmentCode();
    // The app is built before the dispatcher (the dispatcher needs its lease), so the relay slot
    // is bound late; until then it refuses.
    let relay: RelayHandler = async (c) => c.json({ error: "gate_unavailable" }, 403);
    const parts: GateParts = {
      config,
      port: config.port,
      clock,
      registry,
      commandSupport,
      audit,
      enrollmentCode,
      enroll: options.enroll === true,
      bootId,
      log,
      relay: (c, readBody) => relay(c, readBody),
      startupWarnings: new StartupWarnings(),
    };
    const human = await (options.humanSide ?? gateHumanSide)(parts);
    if (human.close !== undefined) cleanups.push(() => human.close?.() ?? Promise.resolve());
    keeper = human.lease;
    const lease = human.lease;
    const stopAuditingLeases = auditLeaseChanges(lease, audit);
    cleanups.push(async () => stopAuditingLeases());

    const dispatcher = createDispatcher({
      registry,
      journal,
      clock,
      channel: channelIdentity(config),
      lease,
      ...(options.verifyWorkspace === undefined ? {} : { verifyWorkspace: options.verifyWorkspace }),
    });
    const capability = generateCapability();
    const capabilityPath = await writeCapabilityFile(config.stateDir, capability);
    cleanups.push(() => removeCapabilityFile(config.stateDir));
    relay = relayHandler({
      capability: () => capability,
      registry,
      commandSupport,
      dispatcher,
      conditionalSend: (request) =>
        conditionalSend(
          { dispatcher, journal, registry, channel: channelIdentity(config), clock, lease },
          request,
        ),
      listUncertain: () => journal.listUncertain(),
      lease,
      approvals: human.approvals,
      audit,
      clock,
    });
    const app = human.app;

    const server = createAdaptorServer({ fetch: app.fetch, hostname: "127.0.0.1" });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
      server.listen(config.port, "127.0.0.1", () => {
        server.removeAllListeners("error");
        resolve();
      });
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    );
    const port = (server.address() as AddressInfo).port;
    const url = `http://localhost:${port}/`;

    await audit.append({
      event: "gate_started",
      bootId,
      environments: registry.environments.map((h) => h.environmentId),
    });
    // The marker records the generations and where the audit chain stands (ADR 0006 §14–§15).
    await opened.stampMarker(audit.anchor());
    // Signals are handled before the URL is printed: whoever reacts to it can already stop us.
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    let closing: Promise<void> | null = null;
    const close = (reason = "stopped") => {
      closing ??= (async () => {
        lease.closeAll("gate_stopped");
        await audit.append({ event: "gate_stopped", bootId, reason }).catch(() => undefined);
        if (!audit.failed) await opened.stampMarker(audit.anchor()).catch(() => undefined);
        await cleanup();
        resolveClosed();
      })();
      return closing;
    };
    if (options.handleSignals ?? true) {
      const onSignal = (signal: NodeJS.Signals) => {
        log(`t3-connector-write gate: ${signal}, closing`);
        void close(signal);
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      cleanups.unshift(async () => {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      });
    }
    const settlement =
      (options.settleAtStart ?? true) ? await settleAtStart(journal, dispatcher, audit) : null;
    const stats = journal.stats();
    const uncertain = (await journal.listUncertain()).length;
    announce(`t3-connector-write gate: listening on ${url} (127.0.0.1 only)`);
    // The code is a way in for whoever reads it: printed only when it is needed (ADR 0017).
    if (options.enroll === true || human.enrolled?.() !== true) {
      announce(`t3-connector-write gate: one-time passkey enrollment code: ${enrollmentCode}`);
    } else {
      announce(
        "t3-connector-write gate: a passkey is enrolled, so no enrollment code is printed " +
          "(add another from the page with an existing one, or start with `gate --enroll`)",
      );
    }
    if (settlement !== null && settlement.attempted > 0) {
      announce(
        `t3-connector-write gate: settled ${settlement.completed + settlement.refused} of ${settlement.attempted} ` +
          `uncertain write(s) at start (${settlement.completed} completed, ${settlement.refused} refused)`,
      );
    }
    if (stats.open > 0) {
      announce(
        `t3-connector-write gate: journal holds ${stats.open} open write(s) after the settle attempt: ${uncertain} uncertain ` +
          "(t3-connector-write reconcile --all-uncertain tries again), the rest preparing (provably unsent; a retry with the same operationId sends once)",
      );
    }

    for (const loss of journal.unknownLossesInForce()) {
      announce(
        `t3-connector-write gate: the journal lost records it cannot name (${loss.files.join(", ")}): every operationId it ` +
          `does not hold is refused (operation_lost) until ${new Date(loss.until).toISOString()}. Check T3 for the writes ` +
          `made before the loss (\`t3-connector-write journal verify\` lists the ones the audit log names), then run ` +
          `\`${LIFT_UNKNOWN_LOSS_COMMAND}\` with the gate stopped`,
      );
    }

    // Not awaited: a slow or unreachable environment must not hold the gate's start.
    const checking = new AbortController();
    cleanups.unshift(async () => checking.abort());
    const environmentWarnings = checkAndReport(registry, checking.signal, (warnings) => {
      for (const warning of warnings) announce(warning.line);
      parts.startupWarnings.add(warnings);
    });

    return {
      url,
      port,
      bootId,
      capabilityPath,
      lease,
      dispatcher,
      audit,
      closed,
      close,
      environmentWarnings,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
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
