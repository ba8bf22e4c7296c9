/**
 * The boundary between the gate's human side (page, passkeys, approvals, the lease) and its
 * machine side (relay for the bridge, dispatch, audit). The human side implements these; the
 * machine side only consumes them, so no code path on the machine side can grant a lease.
 */
import type { EnvironmentGrant, LeaseScope } from "@t3-connector/core/actions";
import type { LeaseCheck } from "@t3-connector/core/dispatch";

/** One write made under a lease, shown on the approval page (never message text). */
export interface LeaseWrite {
  readonly at: string;
  readonly environmentId: string;
  readonly action: string;
  readonly operationId: string;
  readonly state: "completed" | "refused" | "uncertain";
  readonly code?: string;
}

export interface ActiveLease {
  readonly leaseId: string;
  readonly scope: LeaseScope;
  /** Fingerprint of the scope shown to the human when approving. */
  readonly scopeFingerprint: string;
  readonly grantedAt: string;
  readonly expiresAt: string;
}

/** The in-memory lease (a restarted gate starts closed). Also the dispatcher's `LeaseCheck`. */
export interface LeaseKeeper extends LeaseCheck {
  /** The open lease, or null (expiry is checked against a monotonic and a wall clock). */
  current(): ActiveLease | null;
  recordWrite(write: LeaseWrite): void;
  writes(): readonly LeaseWrite[];
  /** Closes the lease (revoke, audit/journal failure, uncertain send) and invalidates approvals in flight. */
  closeAll(reason: string): void;
  onChange(listener: (lease: ActiveLease | null, reason: string) => void): () => void;
}

/** What the bridge asks for: the environments it would like to write to (all when omitted). */
export interface ApprovalAsk {
  readonly environments?: readonly string[];
}

export interface EnvironmentLeftOut {
  readonly alias: string;
  readonly environmentId: string;
  readonly reason: string;
}

export interface ApprovalLink {
  readonly requestId: string;
  /** `http://localhost:<port>/?request=<requestId>`. */
  readonly url: string;
  readonly expiresAt: string;
  /** Built from each environment's live inventory, never from the client. */
  readonly covered: ReadonlyArray<
    Pick<EnvironmentGrant, "alias" | "environmentId" | "label"> & {
      readonly projectCount: number;
      readonly actionCount: number;
    }
  >;
  readonly leftOut: readonly EnvironmentLeftOut[];
}

/** Pending approval requests (120 s each, at most 32), created by the relay, approved on the page. */
export interface ApprovalDesk {
  request(ask: ApprovalAsk, signal?: AbortSignal): Promise<ApprovalLink>;
}
