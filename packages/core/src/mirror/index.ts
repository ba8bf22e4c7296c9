/** Live shell mirrors: one environment's shell kept by `subscribeShell`, served while it can be vouched for. */

export {
  DEFAULT_PROBE_TIMEOUT_MS,
  ShellMirror,
  type ShellMirrorEvent,
  type ShellMirrorOptions,
  type ShellMirrorStatus,
} from "./shell-mirror.js";
export { ShellMirrors, type ShellMirrorsOptions, type ShellRead } from "./shell-mirrors.js";
export type { ShellChange } from "./shell-state.js";
export { ShellState } from "./shell-state.js";
export {
  compareListed,
  type ListedThread,
  type ListedThreadFilter,
  listedThread,
  matchesListedFilter,
  ThreadListIndex,
} from "./thread-list-index.js";
