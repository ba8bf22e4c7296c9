export { type EnvironmentDiscovery, type LocatedThread, locateThread } from "./locate-thread.js";
export {
  BATCH_MAX_TARGETS,
  BATCH_PROJECTIONS_PER_ENVIRONMENT,
  BATCH_TIMEOUT_MS,
  type BatchItem,
  type BatchOptions,
  type BatchResult,
  type BatchTarget,
  readThreadBatch,
} from "./read-batch.js";
export {
  buildThreadRead,
  readLocatedProjection,
  type ThreadDetailOptions,
} from "./thread-detail.js";
export {
  ambiguousThread,
  incompleteScope,
  type MissingEnvironment,
  threadNotFoundAnywhere,
  threadNotFoundIn,
} from "./thread-errors.js";
export { type FetchedProjection, fetchThreadProjection } from "./thread-projection.js";

export { findVisibleThread, type VisibleThread } from "./visible-thread.js";
