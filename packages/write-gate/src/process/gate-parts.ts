/**
 * What the gate's human side (page, passkeys, approvals, lease) is built from and what it hands
 * back: start-gate.ts assembles the parts, human-side.ts builds from them; both import this.
 */
import type { Clock } from "@t3-connector/core";
import type { WriteConfig } from "@t3-connector/core/config";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import type { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import type { WriteEngine } from "@t3-connector/write-engine/engine";
import type { Context, Hono } from "hono";
import type { StartupWarnings } from "../app/index.js";
import type { ApprovalFeed } from "../approval/approval-feed.js";
import type { AuditLog } from "../audit/index.js";
import type { ApprovalDesk, LeaseKeeper } from "../contract.js";
import type { AddressBudget } from "../security/index.js";

/** What the human side (page, passkeys, approvals, lease) gets to build itself from. */
export interface GateParts {
  readonly config: WriteConfig;
  readonly port: number;
  readonly clock: Clock;
  readonly registry: EnvironmentRegistry;
  /** The engine the person's own inbox decisions go through (ADR 0073), as every write does. */
  readonly engine: Pick<WriteEngine, "dispatchOutcome">;
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
  /** The relay's budget: the app's relay route charges it, as the door before the app does. */
  readonly relayBudget: AddressBudget;
  /**
   * This boot's relay capability: the approval page from afar also trusts the client address
   * `serve` names beside it (ADR 0044).
   */
  readonly relayCapability: string;
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
  /** The approval requests and decisions the relay's `approval_events` reads (ADR 0051). */
  readonly approvalFeed?: ApprovalFeed;
  close?(): Promise<void>;
}
