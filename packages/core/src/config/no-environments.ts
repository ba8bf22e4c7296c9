import { ConnectorError } from "../errors.js";

/** Which CLI owns a config: each one adds environments with its own command. */
export type ConfigOwner = "read" | "write" | "ops";

const ADD_COMMAND: Readonly<Record<ConfigOwner, string>> = {
  read: "t3-connector environments add <alias> --url URL",
  write: "t3-connector-write environments add <alias> --url URL",
  ops: "t3-connector-ops environments add <alias> --url URL",
};

/** The command that adds the first environment to `owner`'s config, as the user types it. */
export function addEnvironmentCommandLine(owner: ConfigOwner): string {
  return ADD_COMMAND[owner];
}

/**
 * What every command says when its config lists no environment (a valid state, e.g. after
 * `environments remove` of the last one): which file, and the command that adds one.
 */
export function noEnvironmentsMessage(owner: ConfigOwner, configPath: string): string {
  return (
    `no environment is configured in ${configPath}; add one with: ${ADD_COMMAND[owner]} ` +
    "(or --ssh HOST[:PORT]) and the pairing code on stdin."
  );
}

export function noEnvironmentsError(owner: ConfigOwner, configPath: string): ConnectorError {
  return new ConnectorError("no_environments", noEnvironmentsMessage(owner, configPath), {
    details: { path: configPath, add: ADD_COMMAND[owner] },
  });
}
