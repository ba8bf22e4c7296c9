export { findLooseObject } from "./find-loose-object.js";
export { findReservedKeys, RESERVED_KEYS } from "./find-reserved-keys.js";
