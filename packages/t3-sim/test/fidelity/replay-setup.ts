/**
 * The few things the replay adds to the captured requests so the simulator ends up in the
 * capture's state. Each one is documented in docs/simulator-fidelity.md ("How the replay works").
 */

/** HTTP fixtures made with the orchestration:read-only token (their notes); all others used admin. */
export const READ_ONLY_HTTP = new Set(["07", "10b", "12b", "41", "42"]);

/** The capture's starting state: one probe project and one probe thread (README "Ids"). */
export const PROBE_PROJECT = {
  type: "project.create",
  commandId: "0b8b7c55-7f0f-4d7e-9a0b-52e6f1c0a001",
  projectId: "6741d5cf-3333-4f40-8566-0148c90cfb12",
  title: "accept-ws",
  createWorkspaceRootIfMissing: false,
  defaultModelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
} as const;

export const PROBE_THREAD = {
  type: "thread.create",
  commandId: "0b8b7c55-7f0f-4d7e-9a0b-52e6f1c0a002",
  threadId: "9d935d8b-367f-4afb-b106-aa6f9cf0855b",
  projectId: PROBE_PROJECT.projectId,
  title: "acceptance probe",
  createdBy: "user",
  creationSource: "web",
  modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
  runtimeMode: "approval-required",
  interactionMode: "default",
  branch: null,
  worktreePath: null,
} as const;

/** The thread 20b created for a project that does not exist; the capture deleted it before 21. */
export const DELETED_THREAD_ID = "2796f3ce-9605-4bae-a71f-63927fd6a77c";

/** The simulator's run-script directive for "never leave starting" (0.0.31 had no provider CLI). */
export const STALL_DIRECTIVE = "[[sim:stall]]";
export const STALLED_MESSAGE_FIXTURES = new Set([
  "21-ws-dispatch-message-start-immediately",
  "21b-ws-dispatch-message-start-immediately-t6",
]);

/** Where a captured socket's `t_ms` sits on the replay's timeline. */
export interface SocketClock {
  readonly offsetMs: number;
  /**
   * Received frames are placed this much later than captured: the watcher's clock ran up to
   * ~15 ms ahead of the ops socket's (36 shows a thread.updated at t 419 for a thread.create
   * sent at t 422), and a frame must not be awaited before the command that causes it is sent.
   */
  readonly receiveSkewMs: number;
}

/**
 * The setup session's sockets (20-37). 37's clock started when its socket opened, ~1470 ms into
 * the session: its message.dispatch events (t 405) follow 21's Exit (t 1864) and its title event
 * (t 6020) follows 27's request (t 7488) by that much. At +1470 ms it opens after 20c and the
 * delete and is synchronized before 21, as in the capture.
 */
export const SETUP_SOCKET_CLOCKS: Record<string, SocketClock> = {
  ops: { offsetMs: 0, receiveSkewMs: 0 },
  ro: { offsetMs: 0, receiveSkewMs: 0 },
  "shell-watch": { offsetMs: 0, receiveSkewMs: 25 },
  "thread-watch": { offsetMs: 1_470, receiveSkewMs: 0 },
};
