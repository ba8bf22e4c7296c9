import { configPathContext } from "../../cli-support/index.js";
import { noEnvironmentsError } from "../../config/index.js";
import { ConnectorError } from "../../errors.js";
import { planOperateRenewal } from "../operate-renewal.js";
import { readPairingCode } from "../pair-environment.js";
import { readPairingCodes } from "../read-codes.js";
import { addOperateConfigs, CODE_PURPOSES, pairFailedHint } from "./also-configs.js";
import {
  type EnvironmentsCommandContext,
  type EnvironmentsReport,
  findConfigured,
  loadEnvironments,
} from "./command-context.js";
import type { PairRequest } from "./requests.js";
import { kindRevokeAdvice, pairForKind, refuseReadTokenFile } from "./tokens.js";

const RENEWAL_NOTE = "The tokens these files held before stay valid at T3 until you revoke them there.";

/**
 * `pair --environment X` (ops also `X pair`): turns a pairing code (stdin, never echoed) into a
 * token of exactly the file's scope set and saves it where the file expects it. With `--also`
 * (read CLI), a second code renews the one operate token that write.json and ops.json name for the
 * same environmentId. Every file is checked before a code is spent; no config file is rewritten.
 */
export async function pairCommand(
  context: EnvironmentsCommandContext,
  request: PairRequest,
): Promise<EnvironmentsReport> {
  const { kind, io } = context;
  const loaded = await loadEnvironments(context);
  if (loaded.environments.length === 0) throw noEnvironmentsError(kind.owner, loaded.path);
  const entry = findConfigured(loaded, request.environment);
  await refuseReadTokenFile(kind, io, entry.tokenFile);
  const also = request.also ?? [];
  if (also.length > 0 && kind.owner !== "read") {
    throw new ConnectorError("invalid_input", "--also is the read CLI's: t3-connector pair --also write,ops");
  }
  const plans =
    also.length === 0
      ? []
      : await planOperateRenewal({
          names: also,
          environmentId: entry.environmentId,
          readTokenFiles: loaded.environments.map((env) => env.tokenFile),
          context: configPathContext(io),
        });
  const [code = "", operateCode] =
    plans.length === 0
      ? [await readPairingCode(io)]
      : await readPairingCodes(io, [CODE_PURPOSES.read, CODE_PURPOSES.operate]);
  const paired = await pairForKind(kind, io, entry, code);
  const operate =
    operateCode === undefined
      ? undefined
      : await addOperateConfigs(context, {
          alias: entry.alias,
          environmentId: entry.environmentId,
          transport: entry.transport,
          plans,
          code: operateCode,
          key: "alsoPaired",
          ifFailed: pairFailedHint(entry.alias),
        });
  const value = {
    environment: entry.alias,
    environmentId: entry.environmentId,
    configPath: loaded.path,
    savedTo: paired.savedTo,
    scopes: paired.scopes,
    expiresAt: paired.expiresAt,
    ...operate?.report,
    revoke: [kindRevokeAdvice(kind, [paired.savedTo]), ...(operate?.revoke ?? [])],
    note: RENEWAL_NOTE,
  };
  return { value, exitCode: operate?.ok === false ? 1 : 0 };
}
