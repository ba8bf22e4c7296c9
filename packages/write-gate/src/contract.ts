/**
 * The boundary between the gate's human side (page, passkeys, approvals, the lease) and its
 * machine side (relay for the bridge, dispatch, audit). The human side implements these; the
 * machine side only consumes them, so no code path on the machine side can grant a lease.
 */
import type { EnvironmentGrant, LeaseScope, RuntimeMode } from "@t3-connector/write-engine/actions";
import type { LeaseFacts } from "@t3-connector/write-engine/engine";

/** One write made under a lease, shown on the approval page (never message text). */
export interface LeaseWrite {
  /** The lease the write was made under (ADR 0028). */
  readonly leaseId: string;
  readonly at: string;
  readonly environmentId: string;
  readonly action: string;
  readonly operationId: string;
  /** The first thread the write touched, when its input names one. */
  readonly threadId?: string;
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

/**
 * The in-memory leases, one per approved request (ADR 0028); a restarted gate starts closed. The
 * engine never calls it: the relay hands each write the facts of the lease it names (ADR 0063).
 */
export interface LeaseKeeper {
  /**
   * What the engine decides a write's lease part from: the open lease's scope, launched threads,
   * deadlines and a signal that aborts when it ends. Null when no such lease is open.
   */
  facts(leaseId: string): LeaseFacts | null;
  /** The open lease with this id, or null (expiry is checked against a monotonic and a wall clock). */
  get(leaseId: string): ActiveLease | null;
  /** Every open lease, oldest first. */
  list(): readonly ActiveLease[];
  /** The open lease whose holder presented `secret` (ADR 0022), or null. */
  heldLease(secret: string | undefined): ActiveLease | null;
  /** Milliseconds left on a lease, 0 when closed. */
  remainingMs(leaseId: string): number;
  /** Records a write under the lease it names. */
  recordWrite(write: LeaseWrite): void;
  /** A thread a completed write under the lease created; a thread-limited lease admits it (ADR 0041). */
  recordLaunchedThread(leaseId: string, threadId: string): void;
  writes(leaseId: string): readonly LeaseWrite[];
  /** Whether `secret` is the holder's secret of the open lease `leaseId` (ADR 0022). */
  heldBy(leaseId: string, secret: string | undefined): boolean;
  /** Closes one lease (the page's End, its holder ending it, its expiry); false when it was not open. */
  end(leaseId: string, reason: string): boolean;
  /** Closes every lease (revoke all, audit/journal failure) and invalidates approvals in flight. */
  closeAll(reason: string): void;
  onChange(listener: (change: { lease: ActiveLease; open: boolean; reason: string }) => void): () => void;
}

/**
 * What the bridge asks for. Everything here is the client's proposal or its own words, untrusted:
 * the request's scope is the live inventory; the proposal only chooses what the page ticks first,
 * and a name the inventory does not list refuses the request (ADR 0017).
 */
/** One project write as the client names it in its approval request (ADR 0074). */
export interface ProposedProjectWrite {
  /** Alias or environmentId. */
  readonly environment: string;
  readonly action: "project.create" | "project.delete" | "project.meta.update";
  readonly workspaceRoot?: string;
  readonly createWorkspaceRootIfMissing?: boolean;
  readonly projectId?: string;
  readonly force?: boolean;
}

export interface ApprovalAsk {
  /** Aliases or environmentIds. */
  readonly environments?: readonly string[];
  /** Project ids. */
  readonly projects?: readonly string[];
  /** Catalogue action ids (`thread.pin`). */
  readonly actions?: readonly string[];
  /** Thread ids; they tick their projects. */
  readonly threads?: readonly string[];
  /**
   * Project creates, moves and forced deletes named by their exact input (ADR 0074): the page says
   * the folder (and whether it exists or would be made) or the thread count, and the lease admits
   * only these.
   */
  readonly projectWrites?: readonly ProposedProjectWrite[];
  /** The highest runtime mode a write may run an agent in; `approval-required` when absent (ADR 0022). */
  readonly runtimeCeiling?: RuntimeMode;
  /** The client's reason, shown on the page as its own words (at most 280 characters). */
  readonly purpose?: string;
  /**
   * The MCP clientInfo the bridge received at initialize; for an OAuth session of `serve --http`,
   * the client's name the person allowed and when that session was signed in (ADR 0049).
   */
  readonly client?: { readonly name: string; readonly version?: string; readonly signedInAt?: string };
  /** The open lease the asking client holds: approving this request replaces it (ADR 0022). */
  readonly replaces?: string;
  /** The asking bridge process: its newer request supersedes its older pending one. */
  readonly bridge?: string;
  /**
   * The holder secret the asking process already holds (ADR 0040): the request, and the lease it
   * becomes, are held by it, so one bridge process keeps one secret across all its leases. A
   * secret that is not 43+ base64url characters is not adopted; the desk draws one instead.
   */
  readonly holderSecret?: string;
}

export interface EnvironmentLeftOut {
  readonly alias: string;
  readonly environmentId: string;
  /** `no_projects`, `timeout`, `protocol_unsupported`, `unauthorized`, `scope_mismatch`, `environment_unavailable`. */
  readonly reason: string;
  /** The server's T3 version, when the reason depends on it (`protocol_unsupported`). */
  readonly serverVersion?: string;
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
  /** The fingerprint of the request's whole scope (the page shows the one of what is ticked). */
  readonly scopeFingerprint: string;
  /**
   * Handed only to the relay call that created the request; the lease it becomes answers only to
   * calls presenting it (ADR 0022). Never on the page, never in a wait's answer.
   */
  readonly leaseSecret?: string;
}

/**
 * What became of a request, for a client that waits: `pending` when the wait ran out first;
 * `used` when the request was approved but its lease is no longer open (or the attempt failed).
 */
export type RequestDecision =
  | { readonly outcome: "approved"; readonly lease: ActiveLease }
  | { readonly outcome: "denied" | "expired" | "superseded" | "used" | "pending" };

/** Pending approval requests (120 s each, at most 32), created by the relay, approved on the page. */
export interface ApprovalDesk {
  request(ask: ApprovalAsk, signal?: AbortSignal): Promise<ApprovalLink>;
  /**
   * Resolves as soon as the request is decided, or with `pending` after `waitMs`. Event-driven:
   * nothing polls. An id never issued is `request_invalid`.
   */
  wait(requestId: string, waitMs: number, signal?: AbortSignal): Promise<RequestDecision>;
  /** A live request's link and expiry, or null once it is dead. */
  link(requestId: string): Pick<ApprovalLink, "requestId" | "url" | "expiresAt" | "scopeFingerprint"> | null;
  /**
   * The live request held by `secret` (ADR 0040), without the secret, or null: the holder asking
   * again with nothing proposed is answered that request instead of a new one.
   */
  pendingHeldBy(secret: string | undefined): Omit<ApprovalLink, "leaseSecret"> | null;
  /**
   * Withdraws every request `secret` holds, pending or being verified (its OAuth session ended,
   * ADR 0049): their links say so and none of them grants anything. Answers how many.
   */
  withdrawHeldBy(secret: string): number;
  /**
   * The scope the person's default grant would give now: a request proposing nothing, surveyed
   * live (every environment and project the page would list, the default runtime ceiling). What
   * `t3_preflight` judges a write against (ADR 0075); nothing is kept.
   */
  defaultScope(signal?: AbortSignal): Promise<LeaseScope>;
}
