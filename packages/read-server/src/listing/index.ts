/** Shared pieces of the listing tools (t3_ambientes … t3_control_plane). */
export {
  checkCursor,
  envelopeFields,
  listingIdentity,
  pageFields,
  pageOf,
} from "./paging.js";
export { projectNotAvailable, projectNotAvailableAnywhere, showsProject } from "./project-filter.js";
export {
  calledEnvironmentSchema,
  environmentFailureSchema,
  environmentInput,
  itemEnvironmentSchema,
  queriedEnvironmentSchema,
  scopeEnvelopeShape,
  threadItemSchema,
  threadStateSchema,
  threadSummaryShape,
} from "./schemas.js";
export {
  type ItemEnvironment,
  projectsById,
  type ShellView,
  searchableThreads,
  stateRow,
  sweepShells,
  type ThreadItem,
  threadItem,
  threadItems,
  visibleProjects,
  visibleThreads,
} from "./shells.js";
export { THREAD_LISTING_ORDER, THREAD_SEARCH_ORDER } from "./thread-order.js";
