// The names `--also` takes, from a module with no imports (pairing itself loads when a command runs).
export { OPERATE_CONFIG_NAMES, type OperateConfigName } from "../pairing/operate-config-names.js";
export {
  type CliInput,
  type CliIo,
  configPathContext,
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
  type CommandLineExtra,
  type CommandLineOptions,
  type CommandLineOutcome,
  commanderProblem,
  commandOf,
  logLevelOption,
  parseCommandLine,
  requireValue,
  transportFromOptions,
  UsageProblem,
  usageProblem,
  VERSION_FLAGS,
  valueOnce,
  type Warn,
  withTransportOptions,
} from "./command-line.js";
export { type DiagnosisError, diagnosisError } from "./diagnosis-error.js";
export {
  defineEnvironmentsCommandLine,
  type EnvironmentsCliCommand,
  type EnvironmentsCommandLineOptions,
  type EnvironmentsOwner,
  isEnvironmentsCliCommand,
  parseAlsoOption,
} from "./environments-command-line.js";
export { EXIT_CODES, exitCodeOf } from "./exit-codes.js";
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
export { suggestionFor } from "./suggest.js";
export { type TerminalPrompt, terminalPrompt } from "./terminal-prompt.js";
export {
  answerCommandLine,
  type CommandLineAnswerContext,
  type HelpRequest,
  helpText,
  isCommandLineExtra,
  type NoCommandOutput,
  noCommandOutput,
  usageErrorText,
} from "./usage-output.js";
