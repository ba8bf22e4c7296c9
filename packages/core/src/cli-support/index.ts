export {
  type CliInput,
  type CliIo,
  describeError,
  processIo,
  readAll,
  writeJson,
} from "./cli-io.js";
