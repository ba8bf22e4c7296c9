/** What `t3_preflight` asks and answers (ADR 0075): shared by the entry and the per-environment judge. */

import type { ConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import type { LeaseScope, PreflightAction, RuntimeMode } from "../actions/index.js";
import type { CommandSupportCache } from "../capabilities/index.js";
import type { DuplicateFront } from "./duplicate-front.js";
import type { WorkspaceVerifier } from "./types.js";

export interface WouldPassRequest {
  readonly action: PreflightAction;
  /** Required for a message; a launch without one is judged on every environment. */
  readonly environment?: string;
  /** The send's `operationId` (a message's `clientRequestId` must equal it); default: that id. */
  readonly operationId?: string;
  readonly input: unknown;
  /** The scope the person's default grant would give now (the gate's approval desk, nothing proposed). */
  readonly scope: LeaseScope;
}

/** One refusal the send would give, with its code and the reason the details would carry. */
export interface PreflightReason {
  readonly code: string;
  readonly reason: string;
  readonly message: string;
}

export interface EnvironmentVerdict {
  readonly environment: string;
  readonly environmentId: string;
  readonly wouldPass: boolean;
  readonly reasons: readonly PreflightReason[];
}

export interface WouldPassAnswer {
  readonly action: PreflightAction;
  /** The environment judged: the one named, else the recommended one, else null. */
  readonly environment: string | null;
  readonly wouldPass: boolean;
  /** In one line: "would pass", or "would not pass: " and each code (with its reason when they differ). */
  readonly summary: string;
  readonly reasons: readonly PreflightReason[];
  /** The default grant's ceiling the runtime mode was judged against. */
  readonly ceiling: RuntimeMode;
  /** A launch only: active threads of the project on the same branch, worktree or title (a warning). */
  readonly duplicates: DuplicateFront;
  readonly recommendation: { readonly environment: string; readonly reason: string } | null;
  /** Every environment judged, in environmentId order (a launch without one named, or refused). */
  readonly considered: readonly EnvironmentVerdict[];
}

export interface WouldPassDeps {
  readonly registry: EnvironmentRegistry;
  readonly verifyWorkspace: WorkspaceVerifier;
  readonly commandSupport?: CommandSupportCache;
}

/** What judging one environment found: its reasons, or that the target is not the client's. */
export interface Judged {
  readonly verdict: EnvironmentVerdict;
  /** A project or thread outside the default grant (or missing): answered as a read answers it. */
  readonly outside?: ConnectorError;
  readonly duplicates: DuplicateFront;
}
