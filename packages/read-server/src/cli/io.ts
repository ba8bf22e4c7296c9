// The CLI plumbing is shared with the write gate; this module keeps the read CLI's import path.
export { type CliIo, describeError, processIo, readAll, writeJson } from "@t3-connector/core/cli-support";
