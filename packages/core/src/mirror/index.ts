/** Live shell mirrors: one environment's shell kept by `subscribeShell`, served while it can be vouched for. */
export type { ShellChange } from "./shell-state.js";
export { ShellState } from "./shell-state.js";
export {
  DEFAULT_PROBE_TIMEOUT_MS,
  ShellMirror,
  type ShellMirrorEvent,
  type ShellMirrorOptions,
  type ShellMirrorStatus,
} from "./shell-mirror.js";
export { type ShellMirrorsOptions, type ShellRead, ShellMirrors } from "./shell-mirrors.js";
