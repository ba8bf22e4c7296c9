export { EXIT_CODES, exitCodeOf } from "@t3-connector/core/cli-support";
export { OPS_CONFIG_ENV, OPS_ENVIRONMENTS_ENV, opsConfigPath } from "@t3-connector/core/config";
export { type ActOptions, type ActResult, act, type ConfirmedThread } from "./act.js";
export { type BatchOptions, type OpsBatchItem, type OpsBatchResult, runBatch } from "./batch.js";
export { type CatalogueEntry, catalogue } from "./catalogue-list.js";
export { runCli } from "./cli.js";
export { SEND_DELIVERIES, type SendDelivery } from "./command-constants.js";
export { loadOpsConfig, type OpsConfig, type OpsEnvironmentConfig, parseOpsConfig } from "./config.js";
export { OPS_CONFIG } from "./config-kind.js";
export {
  type ConfigureRequest,
  type ConfigureResult,
  configureThread,
  type ThreadConfiguration,
} from "./configure.js";
export { type CreateRequest, type CreateResult, createThread, resolveProject } from "./create.js";
export { OpsEnvironments } from "./environments.js";
export {
  type ListedThread,
  type ListOptions,
  type ListShowing,
  listThreads,
  type ThreadListing,
} from "./listing.js";
export { DEFAULT_NAMESPACE, opsOperationKey } from "./operation-key.js";
export { type EnvironmentStatus, Ops, type OpsOptions } from "./ops.js";
export { type OrganizeChange, type OrganizeResult, organizeThread } from "./organize.js";
export { isQueryName, QUERY_NAMES, QUERY_TOOLS, type QueryName } from "./query-names.js";
export {
  listEnvironmentThreads,
  listProjects,
  listProviders,
  readTimeline,
  type ThreadListFilters,
} from "./reads.js";
export { matchReference, type ResolvedThread, resolveThread, splitReference } from "./references.js";
export { runQuery } from "./run-query.js";
export { type SendRequest, type SendResult, sendMessage } from "./send.js";
export { type SettleResult, settleThread } from "./settle.js";
export { type InterruptResult, interruptThread, snoozeThread } from "./snooze-interrupt.js";
export { organisationMarks, STATE_ICON } from "./status-icons.js";
export { WAIT_OUTCOMES, type WaitOutcome, type WaitResult, waitForThread } from "./wait.js";
