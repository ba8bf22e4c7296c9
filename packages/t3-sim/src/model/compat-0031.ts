/**
 * The 0.0.31 profile: what an early Orchestrator V2 server (the build the fixtures were captured
 * from) accepts, on top of the transitional descriptor. Every list here comes from
 * fixture 33b (ADR 0009), and was checked against that build's
 * contracts (its command union and its WebSocket RPC group).
 */
import type { RpcOutcome } from "./contract.js";

/** The profile names a simulated environment can play. */
export type CompatProfile = "0.0.31";
export const COMPAT_PROFILES: readonly CompatProfile[] = ["0.0.31"];

export const SERVER_VERSION_0031 = "0.0.31";

/**
 * The command types 0.0.31's payload schema accepts, in its union's order, each with the extra
 * literal fields its decode defect shows (fixture 33b renders them after `"type"`).
 */
const ACCEPTED_0031: readonly (readonly [type: string, literalFields?: string])[] = [
  ["thread.create"],
  ["thread.archive"],
  ["thread.unarchive"],
  ["thread.delete"],
  ["thread.settle"],
  ["thread.unsettle", '"reason": "user"'],
  ["thread.snooze"],
  ["thread.unsnooze", '"reason": "user"'],
  ["thread.pin"],
  ["thread.unpin"],
  ["thread.visit"],
  ["thread.mark-unread"],
  ["thread.metadata.update"],
  ["thread.title.regeneration.complete"],
  ["thread.runtime-mode.set"],
  ["thread.interaction-mode.set"],
  ["thread.model-selection.set"],
  ["provider-session.detach"],
  ["message.dispatch"],
  ["prepared-run.release"],
  ["prepared-run.progress"],
  ["prepared-run.fail"],
  ["run.interrupt"],
  ["queued-message.promote-to-steer"],
  ["queued-run.reorder"],
  ["queued-run.cancel"],
  ["queued-run.edit"],
  ["runtime-request.respond"],
  ["checkpoint.rollback"],
  ["thread.fork"],
  ["thread.merge_back"],
  ["delegated_task.request"],
  ["delegated_task.wake-policy"],
  ["delegated_task.completion-delivery.acknowledge"],
  ["delegated_task.completion-delivery.dispose"],
  ["thread.created.record"],
  ["provider.switch"],
];

/** The 37 command types a 0.0.31 server accepts, in the order its decode defect lists them. */
export const ACCEPTED_COMMAND_TYPES_0031: readonly string[] = ACCEPTED_0031.map(([type]) => type);

/** Commands the connector's write catalogue sends that 0.0.31 answers with the decode `Die`. */
export const ABSENT_COMMAND_TYPES_0031: readonly string[] = [
  "prepared-run.retry",
  "queue.resume",
  "thread.active.reorder",
  "thread.auto-settle.set",
  "thread.pin.reorder",
  "thread.pull-request.link",
  "thread.pull-request.unlink",
  "thread.pull-request.watch",
  "thread.user-input.dismiss",
];

/** 0.0.31's payload decode failure for a command type outside its union (fixture 33b). */
export const UNKNOWN_COMMAND_DEFECT_0031 = `Expected ${ACCEPTED_0031.map(
  ([type, literalFields]) =>
    `{ readonly "type": ${JSON.stringify(type)}, ${literalFields ? `readonly ${literalFields}, ` : ""}... }`,
).join(" | ")}`;

/**
 * The RPC methods 0.0.31 serves among those the simulator implements (its WebSocket RPC group);
 * any other tag dies with `Unknown request tag: <tag>` before auth, as fixture 61 shows.
 */
const RPC_METHODS_0031: ReadonlySet<string> = new Set([
  "server.probe",
  "server.getConfig",
  "subscribeServerConfig",
  "subscribeServerLifecycle",
  "orchestration.dispatchCommand",
  "orchestration.getTurnDiff",
  "orchestration.getFullThreadDiff",
  "orchestration.searchThreads",
  "orchestration.getArchivedShellSnapshot",
  "orchestration.getThreadProjection",
  "orchestration.getWorkflowScript",
  "orchestration.launchThread",
  "orchestration.subscribeArchivedShell",
  "orchestration.subscribeShell",
  "orchestration.subscribeThread",
  "projects.mutate",
  // Served to a read token too (fixtures 106–112).
  "vcs.refreshStatus",
  "vcs.listRefs",
]);

/** What a compat profile changes in the model: the methods it serves and the commands it decodes. */
export interface ModelCompat {
  readonly profile: CompatProfile;
  readonly serverVersion: string;
  servesMethod(tag: string): boolean;
  /** The refusal for a command the profile's schema rejects before any handler runs, else undefined. */
  refuseCommand(payload: unknown): RpcOutcome | undefined;
}

export const COMPAT_0031: ModelCompat = {
  profile: "0.0.31",
  serverVersion: SERVER_VERSION_0031,
  servesMethod: (tag) => RPC_METHODS_0031.has(tag),
  refuseCommand(payload) {
    const type =
      payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>).type : undefined;
    if (typeof type === "string" && ACCEPTED_COMMAND_TYPES_0031.includes(type)) return undefined;
    return { kind: "die", defect: UNKNOWN_COMMAND_DEFECT_0031 };
  },
};

export function modelCompat(profile: CompatProfile | undefined): ModelCompat | undefined {
  return profile === "0.0.31" ? COMPAT_0031 : undefined;
}

/**
 * The orchestration HTTP reads 0.0.31 routes (its HTTP API has the shell and the full thread
 * snapshot only); the bounded snapshot and the history pages fall through to its SPA fallback.
 */
export type OrchestrationReadRoute = "shell" | "thread" | "bounded" | "history";
export const HTTP_READ_ROUTES_0031: ReadonlySet<OrchestrationReadRoute> = new Set(["shell", "thread"]);
