import { keepConsoleOffStdout, type LeveledLog } from "@t3-connector/core/cli-support";
import { installProcessGuard, type ProcessGuard } from "@t3-connector/core/process-guard";
import { READ_SERVER_NAME } from "./server-name.js";

/**
 * What a long-running read server does to its process first. Stdout carries protocol only (MCP
 * frames on stdio, the ready line over HTTP): a stray console.log from any module would corrupt
 * it. And no caller's input or timing may end the server for every client: the process guard
 * logs a stray rejection, fails its call and keeps serving (ADR 0020). Dispose the guard on exit.
 */
export function takeOverProcess(log: LeveledLog): ProcessGuard {
  keepConsoleOffStdout();
  return installProcessGuard({ processName: READ_SERVER_NAME, log: (line) => log.error(line) });
}
