import { homedir } from "node:os";
import { join } from "node:path";

/** `$XDG_STATE_HOME/t3-connector/events`, else `~/.local/state/t3-connector/events`. */
export function defaultEventsStateDir(
  env: Record<string, string | undefined> = process.env,
  home = homedir(),
): string {
  const base = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : join(home, ".local", "state");
  return join(base, "t3-connector", "events");
}
