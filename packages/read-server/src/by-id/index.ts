export { type EnvironmentDiscovery, type LocatedThread, locateThread } from "./locate-thread.js";
export {
  buildThreadRead,
  readLocatedProjection,
  readThreadDetail,
  type ThreadDetailOptions,
} from "./thread-detail.js";
export {
  ambiguousThread,
  incompleteScope,
  threadNotFoundAnywhere,
  threadNotFoundIn,
} from "./thread-errors.js";
export { type FetchedProjection, fetchThreadProjection } from "./thread-projection.js";
export * from "./thread-read-schema.js";
export { findVisibleThread, type VisibleThread } from "./visible-thread.js";
