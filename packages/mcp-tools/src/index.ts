export { type CallingClient, callingClient } from "./calling-client.js";
export { INITIALIZE_VERSION_MESSAGE, refusedInitialize } from "./initialize-check.js";
export {
  type RegisterToolsOptions,
  registerToolGroups,
  registerTools,
  type ToolCall,
  type ToolGroup,
  toolGroup,
} from "./register-tools.js";
export {
  describeTooLarge,
  type StdioEnd,
  type StdioServingOptions,
  type StdioSession,
  serveToolsOnStdio,
} from "./stdio-serving.js";
export type { ToolCallExtra, ToolDefinition, ToolInputRequired } from "./tool-definition.js";
export {
  TOOL_ERROR_META_KEY,
  type ToolErrorInfo,
  type ToolErrorResult,
  toolErrorResult,
  withoutStructuredContent,
} from "./tool-error-result.js";
export {
  checkToolInput,
  describeInputIssues,
  TOOL_INPUT_ERROR_CODE,
  type ToolInputCheck,
  type ToolInputError,
  type ToolInputErrorResult,
  toolInputErrorResult,
} from "./tool-input.js";
export { convertToolJsonSchema, rememberToolJsonSchema, toolJsonSchema } from "./tool-json-schema.js";
export { ToolServer } from "./tool-server.js";
export { toolSuccess } from "./tool-success.js";
export {
  type RetriedCall,
  type UrlAnswer,
  type UrlInputRequest,
  urlAnswer,
  verifyRequestState,
} from "./url-input.js";
