/**
 * The shape of one write action: what the gate (checks and send), the operator CLI and the write
 * bridge need, declared as data. How a client protocol presents an action (tool names, hints,
 * notes for a model) is not here: the bridge keeps that in its own table, keyed by action id.
 */
import type { z } from "zod";
import type { Guard } from "./guards.js";

/** The kinds of id the connector derives from the operation key and sends to T3. */
export const ID_KINDS = ["commandId", "messageId", "threadId", "targetThreadId"] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** Ids derived for one operation (see ids.ts). `commandId` always exists. */
export interface DerivedIds {
  readonly commandId: string;
  readonly messageId?: string;
  readonly threadId?: string;
  readonly targetThreadId?: string;
  /**
   * For thread.send only: T3's `message.dispatch` has no client request field, so the caller's
   * `clientRequestId` (which must equal `operationId`) is kept here for the journal record.
   */
  readonly clientRequestId?: string;
}

/** A V2 command for `orchestration.dispatchCommand`. */
export interface WireCommand {
  readonly type: string;
  readonly commandId: string;
  readonly [field: string]: unknown;
}

/** `OrchestrationV2ThreadLaunchInput` for `orchestration.launchThread`. */
export interface WireLaunchInput {
  readonly commandId: string;
  readonly projectId: string;
  readonly [field: string]: unknown;
}

/** The exact payload of the one outbound call. */
export type BuiltPayload =
  | { readonly kind: "dispatch"; readonly command: WireCommand }
  | { readonly kind: "launch"; readonly input: WireLaunchInput };

export const RPC_METHOD = {
  dispatch: "orchestration.dispatchCommand",
  launch: "orchestration.launchThread",
} as const;

/** What the gate must find in the lease and in a fresh shell before sending. */
export interface ActionTargets {
  /** Existing threads the write touches; each must exist (not deleted) and sit in a leased project. */
  readonly threadIds: readonly string[];
  /** Projects named directly by the input (thread.launch). */
  readonly projectIds: readonly string[];
}

/**
 * What an action risks, for the person approving a lease (ADR 0017): `organize` changes how threads
 * are filed and shown; `run` makes the agent do (or stop doing) work; `destructive` loses work or
 * data irreversibly. A destructive action is never pre-selected on the approval page unless proposed.
 */
export const ACTION_GROUPS = ["organize", "run", "destructive"] as const;
export type ActionGroup = (typeof ACTION_GROUPS)[number];

export interface ActionDefinition<A extends string = string, S extends z.ZodType = z.ZodType> {
  readonly action: A;
  /** Plain-language name a person approving a lease understands (the page, the CLI, the bridge). */
  readonly label: string;
  readonly group: ActionGroup;
  /** One plain line of what the action does, for people (page, operator CLI) and clients. */
  readonly description: string;
  /** Strict schema of the tool's `input` object. */
  readonly inputSchema: S;
  /** The T3 command `type` sent, or `null` for thread.launch (an RPC, not a command). */
  readonly commandType: string | null;
  readonly payloadKind: BuiltPayload["kind"];
  /** Derived ids this action sends besides `commandId`. */
  readonly extraIds: readonly Exclude<IdKind, "commandId">[];
  /** Checks the gate runs before sending, in order. */
  readonly guards: readonly Guard[];
  /**
   * The input field holding the runtime mode an agent will run in (launch, delegated task, mode
   * switch). Absent: the action chooses no mode. The lease's runtime ceiling caps it (ADR 0022).
   */
  readonly runtimeModeField?: string;
  /**
   * The action makes the target thread's agent work in the mode the thread already has (a
   * message; a resumed queue or a retried preparation, whose runs start in it, ADR 0036). The
   * lease's runtime ceiling caps that current mode too: a message to a thread in `full-access`
   * under an `approval-required` lease would drive a full-access agent.
   */
  readonly runsInThreadMode?: boolean;
  /** Project-scoped writes are serialised per `[environmentId, sorted projectIds]` in the gate. */
  readonly serializeByProject: boolean;
  // Method syntax on purpose: parameters stay bivariant so every entry fits one table type.
  targets(input: z.output<S>): ActionTargets;
  build(input: z.output<S>, ids: DerivedIds): BuiltPayload;
}
