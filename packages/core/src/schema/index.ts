export { findLooseObject } from "./find-loose-object.js";
export { findReservedKeys, RESERVED_KEYS } from "./find-reserved-keys.js";
export { isTooDeep, jsonDepth, MAX_JSON_INPUT_DEPTH } from "./json-depth.js";
