import { hostname } from "node:os";
import type { TerminalPrompt } from "../../cli-support/index.js";
import type { Transport } from "../../config/index.js";
import { isConnectorError } from "../../errors.js";
import type { OperateConfigName } from "../operate-config-names.js";
import { type OperateConfigPlan, pairOperateConfigs } from "../operate-configs.js";
import type { EnvironmentsCommandContext } from "./command-context.js";
import { environmentMismatch, type RevokeAdvice, revokeAdvice } from "./tokens.js";

/**
 * The read CLI's offer to pair the rest of the machine: after the read token, the gate's
 * write.json and ops' ops.json get the same environment with one operate token. A T3 pairing code
 * is spent by its first exchange and an operate token cannot mint another code (that needs
 * `access:write`), so the operate token comes from a second code (docs/adr/0031).
 */

/** What the code prompts and the piped stdin lines are for, in order. */
export const CODE_PURPOSES = {
  read: "the read-only token (t3-connector)",
  operate: "the operate token (the write gate and ops)",
} as const;

/** The flag's answer, else a yes/no question on a terminal, else nothing (the read side alone). */
export async function chooseOperateConfigs(
  also: readonly OperateConfigName[] | undefined,
  alias: string,
  prompt: TerminalPrompt | undefined,
): Promise<OperateConfigName[]> {
  if (also !== undefined) return [...also];
  if (prompt === undefined) return [];
  const answer = await prompt.ask(
    `Also add "${alias}" to the write gate (write.json) and ops (ops.json)? They get an operate token ` +
      "from a second pairing code. [y/N] ",
  );
  return /^y(es)?$/i.test(answer) ? ["write", "ops"] : [];
}

/** The session's name at T3 says which of our processes hold it: `t3-connector gate+ops (host)`. */
export function operateClientLabel(plans: readonly Pick<OperateConfigPlan, "name">[]): string {
  const holders = plans.map((plan) => (plan.name === "write" ? "gate" : "ops"));
  return `t3-connector ${holders.join("+")} (${hostname()})`;
}

/** What to run when `environments add --also` added the read side but not the operate side. */
export function addFailedHint(alias: string): string {
  return (
    "The read side was added. Create a new pairing code for each, then run " +
    `\`t3-connector-write environments add ${alias} …\` and \`t3-connector-ops environments add ${alias} …\`.`
  );
}

/** What to run when `pair --also` renewed the read token but not the operate one. */
export function pairFailedHint(alias: string): string {
  return (
    "The read token was renewed. Create a new pairing code for each, then run " +
    `\`t3-connector-write pair --environment ${alias}\` and \`t3-connector-ops pair --environment ${alias}\`.`
  );
}

export interface OperateOutcome {
  ok: boolean;
  /** Merged into the command's JSON: `<key>` (what was written), `alsoFailed` when it failed. */
  report: Record<string, unknown>;
  revoke: RevokeAdvice[];
}

export interface OperateSide {
  alias: string;
  environmentId: string;
  transport: Transport;
  plans: readonly OperateConfigPlan[];
  code: string;
  /** The report's key: `alsoAdded` for environments add, `alsoPaired` for pair. */
  key: "alsoAdded" | "alsoPaired";
  /** What to do instead when the operate side fails (the read side has already succeeded). */
  ifFailed: string;
}

/**
 * Pairs the operate token into the plans' token files (and writes the new configs). Called after
 * the read side succeeded, so a failure here is reported beside that success (with what to run
 * instead), not thrown over it.
 */
export async function addOperateConfigs(
  context: EnvironmentsCommandContext,
  side: OperateSide,
): Promise<OperateOutcome> {
  const { fetch } = context.io;
  try {
    const outcome = await pairOperateConfigs({
      ...side,
      ...(fetch === undefined ? {} : { fetch }),
      wording: {
        clientLabel: operateClientLabel(side.plans),
        environmentMismatch: (expected, actual) =>
          environmentMismatch(expected, actual, "operate pairing code"),
        scopeMismatchMessage: "T3 granted a different scope set than read + operate",
      },
    });
    const scopes = [...outcome.scopes].sort();
    const written = side.plans.map((plan) => ({
      config: plan.name,
      path: plan.path,
      alias: plan.alias,
      tokenFile: plan.tokenFile,
      scopes,
    }));
    const tokenFiles = side.plans.map((plan) => plan.tokenFile);
    return {
      ok: true,
      report: { [side.key]: written },
      revoke: [revokeAdvice("operate", tokenFiles, operateClientLabel(side.plans))],
    };
  } catch (error) {
    const failure = isConnectorError(error)
      ? { code: error.code, message: error.message }
      : { code: "internal", message: `the operate side failed: ${(error as Error).message}` };
    const failed = { ...failure, configs: side.plans.map((plan) => plan.path), next: side.ifFailed };
    return { ok: false, report: { [side.key]: [], alsoFailed: failed }, revoke: [] };
  }
}
