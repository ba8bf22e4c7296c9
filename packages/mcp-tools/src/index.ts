export {
  type RegisterToolsOptions,
  registerToolGroups,
  registerTools,
  type ToolCallRequest,
  type ToolGroup,
  type ToolRequestExtra,
  toolGroup,
} from "./register-tools.js";
export type { ToolCallExtra, ToolDefinition } from "./tool-definition.js";
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
  lenientCallToolRequestSchema,
  TOOL_INPUT_ERROR_CODE,
  type ToolInputCheck,
  type ToolInputError,
  type ToolInputErrorResult,
  toolInputErrorResult,
} from "./tool-input.js";
export { toolJsonSchema } from "./tool-json-schema.js";
export { toolSuccess } from "./tool-success.js";
