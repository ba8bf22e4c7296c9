export {
  type CliInput,
  type CliIo,
  describeError,
  processIo,
  readAll,
  writeJson,
} from "./cli-io.js";
export { readPackageVersion } from "./package-version.js";
