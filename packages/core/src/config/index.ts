export { type ConfigKind, refuseLegacyKeys, refuseWriteAllowlists } from "./legacy-keys.js";
export { loadJsonFile } from "./load-json.js";
export {
  addEnvironmentCommandLine,
  type ConfigOwner,
  noEnvironmentsError,
  noEnvironmentsMessage,
} from "./no-environments.js";
export {
  expandHome,
  isAnchoredPath,
  OPS_CONFIG_ENV,
  OPS_ENVIRONMENTS_ENV,
  opsConfigPath,
  type PathContext,
  READ_CONFIG_ENV,
  readConfigPath,
  WRITE_CONFIG_ENV,
  writeConfigPath,
} from "./paths.js";
export {
  type ConfinedRoot,
  confineWorkspaceRoot,
  nodeRootFileSystem,
  type RootFileSystem,
} from "./project-folder.js";
export { type ListedProject, type ProjectAcl, readProjectAcl } from "./read-acl.js";
export {
  loadReadConfig,
  parseReadConfig,
  type ReadConfig,
  type ReadEnvironmentConfig,
  type ReadEventsConfig,
} from "./read-config.js";
export {
  ALIAS_PATTERN,
  baseUrlSchema,
  configInvalid,
  DEFAULT_REMOTE_PORT,
  type EnvironmentConfig,
  isLoopbackHostname,
  isSafeSshHost,
  projectRootsSchema,
  refineEnvironments,
  refineTransport,
  SSH_HOST_PATTERN,
  sshSchema,
  type Transport,
  toEnvironmentConfig,
} from "./schema-common.js";
export { readTokenFile, type TokenFileOptions, writeTokenFile } from "./token-file.js";
export { loadWriteConfig, parseWriteConfig, TUNNEL_ID_PATTERN, type WriteConfig } from "./write-config.js";
