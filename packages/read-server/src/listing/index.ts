/** Shared pieces of the listing tools (t3_ambientes … t3_control_plane); their schemas and orders are in @t3-connector/mcp-tools/read-contracts. */

export {
  projectNotAvailable,
  projectNotAvailableAnywhere,
  showsProject,
} from "@t3-connector/mcp-tools/read-answers";
export {
  checkCursor,
  envelopeFields,
  listingIdentity,
  pageFields,
  pageOf,
} from "./paging.js";
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
