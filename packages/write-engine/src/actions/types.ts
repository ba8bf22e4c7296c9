/**
 * The shape of one write action: what the gate (checks and send), the operator CLI and the write
 * bridge need, declared as data. How a client protocol presents an action (tool names, hints,
 * notes for a model) is not here: the bridge keeps that in its own table, keyed by action id.
 */
import type { z } from "zod";
import type { RuntimeMode } from "./fields.js";
import type { Guard } from "./guards.js";

/** The kinds of id the connector derives from the operation key and sends to T3. */
export const ID_KINDS = ["commandId", "messageId", "threadId", "targetThreadId", "projectId"] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** Ids derived for one operation (see ids.ts). `commandId` always exists. */
export interface DerivedIds {
  readonly commandId: string;
  readonly messageId?: string;
  readonly threadId?: string;
  readonly targetThreadId?: string;
  /** project.create: the new project's id. */
  readonly projectId?: string;
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

/**
 * The exact payload of the one outbound call. A project mutation goes by `projects.mutate`: on
 * 0.0.31 `orchestration.dispatchCommand` has no project command, and the HTTP route drops `force`
 * and deletes a project's threads without counting them (fixtures 105, 107; ADR 0074).
 */
export type BuiltPayload =
  | { readonly kind: "dispatch"; readonly command: WireCommand }
  | { readonly kind: "launch"; readonly input: WireLaunchInput }
  | { readonly kind: "project"; readonly mutation: WireCommand };

export const RPC_METHOD = {
  dispatch: "orchestration.dispatchCommand",
  launch: "orchestration.launchThread",
  project: "projects.mutate",
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

/**
 * How an action relates to an agent's run (ADR 0037). Every entry must say one; the runtime
 * ceiling follows from it:
 * - `starts-run`: starts or resumes an agent (a message, a released or retried prepared run, a
 *   resumed queue, an answered request, a wake);
 * - `changes-run`: changes what an agent will do once it runs (edits, steers, promotes, reorders
 *   the queue, moves its workspace, stops a run so the next queued one starts);
 * - `sets-mode`: sets the runtime mode an agent runs in (a mode switch, a fork's copied mode);
 * - `runs-nothing`: cannot make any agent run or change what one does.
 * Every effect but `runs-nothing` is capped by the mode of each thread it drives; an input
 * `runtimeModeField` is capped whatever the effect.
 */
export const RUN_EFFECTS = ["starts-run", "changes-run", "sets-mode", "runs-nothing"] as const;
export type RunEffect = (typeof RUN_EFFECTS)[number];

/**
 * What the ceiling reads of a thread an action drives, from a fresh read: its current mode (null
 * when T3 does not say), its active run, and the queued runs that start when the provider is free.
 */
export interface ThreadRunView {
  readonly id: string;
  readonly runtimeMode: RuntimeMode | null;
  readonly activeRunId: string | null;
  /** Queued runs not held (`queueHeld`): the next one starts as soon as the active run ends. */
  readonly queuedToStart: number;
}

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
  /** How the action relates to an agent's run; the ceiling over threads' modes follows from it. */
  readonly runEffect: RunEffect;
  /**
   * The threads whose agents the action drives (whose current mode the ceiling caps): the target
   * threads unless the entry says otherwise (a merge-back drives its target thread only).
   */
  drives(input: z.output<S>): readonly string[];
  /**
   * Narrows when the effect holds, given the input and one driven thread as read fresh (a stop
   * that holds the queue starts nothing). Absent: always. Called with `input` undefined when the
   * caller has no parsed input (then the ceiling applies).
   */
  effectHolds?(input: z.output<S>, thread: ThreadRunView): boolean;
  /** What a refused client can do instead, when it is not the usual "switch the thread down first". */
  readonly ceilingAdvice?: string;
  /** Project-scoped writes are serialised per `[environmentId, sorted projectIds]` in the gate. */
  readonly serializeByProject: boolean;
  // Method syntax on purpose: parameters stay bivariant so every entry fits one table type.
  targets(input: z.output<S>): ActionTargets;
  build(input: z.output<S>, ids: DerivedIds): BuiltPayload;
}
