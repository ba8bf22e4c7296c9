export { findLooseObject } from "./find-loose-object.js";
export { findReservedKeys, RESERVED_KEYS } from "./find-reserved-keys.js";
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
