/**
 * `--log-level` of the long-running processes (`serve`, `gate`, `bridge`): what they write to
 * stderr. `error` keeps only what stops the process or a call; `warn` adds environments that are
 * down; `info` (the default) adds the start-up banner and lifecycle lines; `debug` adds detail.
 */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = "info";

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

export interface LeveledLog {
  error(line: string): void;
  warn(line: string): void;
  info(line: string): void;
  debug(line: string): void;
}

/** Writes each line (with a newline) when its level is at or above `level`. */
export function leveledLog(write: (text: string) => unknown, level: LogLevel): LeveledLog {
  const threshold = LOG_LEVELS.indexOf(level);
  const at = (lineLevel: LogLevel) => (line: string) => {
    if (LOG_LEVELS.indexOf(lineLevel) <= threshold) write(`${line}\n`);
  };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}
