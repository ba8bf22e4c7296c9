export {
  type CliInput,
  type CliIo,
  describeError,
  processIo,
  readAll,
  writeJson,
} from "./cli-io.js";
export {
  CLIENT_NAMES,
  type ClientName,
  clientConfigSnippet,
  isClientName,
  type StdioServerLaunch,
} from "./client-config.js";
export {
  type CommandLineOptions,
  type CommandLineOutcome,
  commandOf,
  logLevelOption,
  parseCommandLine,
  requireValue,
  transportFromOptions,
  UsageProblem,
  usageProblem,
  valueOnce,
  withTransportOptions,
} from "./command-line.js";
export {
  DEFAULT_LOG_LEVEL,
  isLogLevel,
  type LeveledLog,
  LOG_LEVELS,
  type LogLevel,
  leveledLog,
} from "./log-level.js";
export { readPackageVersion } from "./package-version.js";
export { keepConsoleOffStdout } from "./stdout-guard.js";
export { type TerminalPrompt, terminalPrompt } from "./terminal-prompt.js";
