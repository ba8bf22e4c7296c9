export type { CliIo } from "@t3-connector/core/cli-support";
export { toolSuccess } from "@t3-connector/mcp-tools";
export { runCli, USAGE, USAGE_EXIT_CODE } from "./cli.js";
export {
  type BackgroundService,
  type BackgroundServices,
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  type HttpReadyLine,
  type HttpServeOptions,
  type ServeHttpExtras,
  serveHttp,
} from "./http/index.js";
export { type PackageInfo, packageInfo } from "./package-info.js";
export {
  createProcessReadContext,
  type ProcessReadContextOptions,
  type ReadContext,
} from "./read-context.js";
export {
  defineReadTool,
  READ_ONLY_ANNOTATIONS,
  type ReadOnlyAnnotations,
  type ReadToolDefinition,
  type ReadToolExtra,
} from "./read-tool.js";
export {
  assertReadToolList,
  READ_TOOL_NAMES,
  type ReadToolName,
  readToolListProblems,
} from "./read-tool-list.js";
export { registerReadTools } from "./register-read-tools.js";
export { createReadServer } from "./server.js";
export { READ_SERVER_NAME } from "./server-name.js";
export { CANCELLED_ERROR_TEXT, INTERNAL_ERROR_TEXT, toolError } from "./tool-result.js";
export { readToolDefinitions } from "./tools/index.js";
