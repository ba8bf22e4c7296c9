import type { OperateConfigName } from "../operate-config-names.js";

/**
 * What each environments command is asked, as a command line parses it (core's cli-support) and
 * as the command runs it (this folder). Types only, so the parse and the commands both import
 * them without importing each other.
 */

/** `--url URL` or `--ssh HOST[:PORT]`, as typed. */
export type TransportOption = { url: string } | { ssh: string };

/** `--projects all` or `--projects ID,ID`. */
export type ProjectsOption = { all: true } | { ids: string[] };

export interface AddEnvironmentRequest {
  alias: string;
  /** `--url URL` or `--ssh HOST[:PORT]`, as typed. */
  transport: TransportOption;
  /** A file that limits projects (read): `all`, a list of projectIds, or undefined to choose in the terminal. */
  projects?: ProjectsOption;
  /** The read CLI's other files to fill with an operate token; undefined asks on a terminal. */
  also?: OperateConfigName[];
  /** Where the token goes (ops' `--token-file`); default `tokens/<alias>.<kind>.token` beside the file. */
  tokenFile?: string;
  /** The environmentId expected (ops' `--environment-id`): the server must announce it. */
  environmentId?: string;
  /** ops' extra names of the environment. */
  aliases?: string[];
  /** ops: plain http to another host (a network that encrypts by itself). */
  insecureHttp?: boolean;
}

export interface MoveRequest {
  alias: string;
  transport: TransportOption;
}

export interface RemoveRequest {
  alias: string;
}

export interface DiagnoseRequest {
  /** One environment (alias, extra name or environmentId); every one when absent. */
  environment?: string | undefined;
  /** List each environment's projects (`inventory`). */
  projects?: boolean | undefined;
  /** `--deep`: probe the one named environment's every assumption (deep/deep-diagnose.ts, ADR 0069). */
  deep?: boolean | undefined;
  /** With `deep`: the report as JSON rather than text. */
  json?: boolean | undefined;
}

export interface PairRequest {
  /** Alias, extra name (ops) or environmentId. */
  environment: string;
  /** The read CLI's `--also write,ops`: renew the operate token those files name too. */
  also?: readonly OperateConfigName[] | undefined;
}
