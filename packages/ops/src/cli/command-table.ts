import type { Command } from "commander";
import type { CliSession } from "./session.js";

/** Adds one command (or one command with its subcommands) to the program. */
export type RegisterCommand = (program: Command, session: CliSession) => void;
