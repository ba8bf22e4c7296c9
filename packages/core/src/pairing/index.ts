export {
  checkNewAlias,
  defaultTokenFile,
  describeTransport,
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  PROBE_TIMEOUT_MS,
  parseTransportOption,
  probeEnvironmentId,
  REVOKE_AT_T3_NOTE,
  refuseExisting,
  saveConfigDocument,
  transportConfigKeys,
  withBaseUrl,
  withoutEnvironment,
} from "./add-environment.js";
export * from "./command/index.js";
export type { TransportOption } from "./command/requests.js";
export {
  type MovedEnvironment,
  type MoveEnvironmentRequest,
  moveEnvironmentInConfig,
} from "./move-environment.js";
export { OPERATE_CONFIG_NAMES, type OperateConfigName } from "./operate-config-names.js";
export {
  NEW_WRITE_CONFIG_PORT,
  type OperateConfigPlan,
  type PairOperateConfigsOptions,
  type PlanOperateConfigsOptions,
  pairOperateConfigs,
  planOperateConfigs,
} from "./operate-configs.js";
export { type PlanOperateRenewalOptions, planOperateRenewal } from "./operate-renewal.js";
export {
  PAIR_TIMEOUT_MS,
  type PairEnvironmentOptions,
  type PairingOutcome,
  type PairingWording,
  pairEnvironment,
  readPairingCode,
} from "./pair-environment.js";
export { readPairingCodes } from "./read-codes.js";
export {
  type RemovedEnvironment,
  type RemoveEnvironmentRequest,
  removeEnvironmentFromConfig,
} from "./remove-environment.js";
