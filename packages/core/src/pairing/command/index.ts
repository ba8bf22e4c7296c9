// The one environments command of the three CLIs (ADR 0058): each CLI names its file's kind and
// prints the report; the steps are here once. Loaded by each CLI only when such a command runs.
export { addCommand } from "./add.js";
export { CODE_PURPOSES, chooseOperateConfigs } from "./also-configs.js";
export { cliCommandsFor, type EnvironmentsRequest, runEnvironmentsCommand } from "./cli-commands.js";
export {
  type EnvironmentsCommandContext,
  type EnvironmentsReport,
  printReport,
} from "./command-context.js";
export {
  type ConfiguredEnvironment,
  type EnvironmentsConfigKind,
  type LoadedEnvironments,
  type OpsConfigSchema,
  opsConfigKind,
  READ_CONFIG,
  WRITE_CONFIG,
} from "./config-kinds.js";
export {
  DEEP_PROBE_TIMEOUT_MS,
  type DeepDiagnoseReport,
  type DeepDiagnoseRequest,
  deepDiagnoseCommand,
} from "./deep/deep-diagnose.js";
export {
  type Assumption,
  type AssumptionStatus,
  DEEP_REPORT_KIND,
  type DeepReport,
  deepReportText,
} from "./deep/report.js";
export {
  DIAGNOSE_TIMEOUT_MS,
  diagnoseCommand,
  type EnvironmentDiagnosis,
} from "./diagnose.js";
export { moveCommand, removeCommand } from "./move-remove.js";
export { pairCommand } from "./pair.js";
export type { LiveProject } from "./project-choice.js";
export type {
  AddEnvironmentRequest,
  DiagnoseRequest,
  MoveRequest,
  PairRequest,
  ProjectsOption,
  RemoveRequest,
} from "./requests.js";
