export { addArchivedThreads, readArchivedShell, withArchivedThreads } from "./archived-shell.js";
export type { ConnectedEnvironment, RpcOptions } from "./connection.js";
export { type ConnectOptions, EnvironmentHandle } from "./environment-handle.js";
export * from "./inbox-items.js";
export {
  FIRST_PROTOCOL_2_RELEASE,
  protocolUnsupported,
  type ShellProtocolMarks,
  shellProtocolMarks,
} from "./older-protocol.js";
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  EnvironmentRegistry,
  type EnvironmentRegistryOptions,
} from "./registry.js";
export { killSpawnedTunnels, spawnedTunnelCount } from "./spawned-children.js";
export {
  findFreePort,
  type SpawnFunction,
  SshTunnel,
  type SshTunnelOptions,
  sshTunnelArgs,
} from "./ssh-tunnel.js";
export {
  OPERATE_SCOPES,
  type ProtocolEvidence,
  READ_SCOPES,
  scopeDifference,
  type VerifiedIdentity,
  verifyEnvironment,
} from "./verify.js";
