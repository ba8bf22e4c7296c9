export { findLooseObject } from "./find-loose-object.js";
