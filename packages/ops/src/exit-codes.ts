/**
 * The exit codes are one table for every CLI (core's cli-support, docs/cli.md); ops re-exports it
 * under the name its modules already import.
 */
export { EXIT_CODES, exitCodeOf } from "@t3-connector/core/cli-support";
