import { isConnectorError } from "../errors.js";

/** A failed environment as `diagnose` reports it: the typed code, the message, and what to do next. */
export interface DiagnosisError {
  code: string;
  message: string;
  /** The command that fixes the common cause, when the code names one. */
  next?: string;
}

/**
 * The error of one environment `diagnose` could not check. For the failures a person can fix from
 * this machine, `next` names the command: a machine that no longer answers at its address has
 * often moved (`environments move` keeps its token), a refused token needs a new pairing code
 * (`pair`), and another machine answering at the address was moved or reinstalled.
 */
export function diagnosisError(error: unknown, cli: string, alias: string): DiagnosisError {
  if (!isConnectorError(error)) return { code: "internal", message: "unexpected failure" };
  const next = nextStep(error.code, cli, alias);
  return { code: error.code, message: error.message, ...(next === undefined ? {} : { next }) };
}

function nextStep(code: string, cli: string, alias: string): string | undefined {
  switch (code) {
    case "unavailable":
    case "connection_lost":
    case "timeout":
      return (
        `check that T3 Code runs at the configured address; if the machine moved, ` +
        `${cli} environments move ${alias} --url URL (or --ssh HOST[:PORT]) keeps its token`
      );
    case "unauthorized":
      return `the token was refused (expired or revoked): ${cli} pair --environment ${alias} with a new pairing code`;
    case "environment_mismatch":
      return (
        `another T3 machine answers at this address: if "${alias}" moved, ${cli} environments move ${alias} ` +
        `to its new address; if it was reinstalled, ${cli} environments remove ${alias}, then environments add`
      );
    default:
      return undefined;
  }
}
