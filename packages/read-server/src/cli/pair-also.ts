import { configPathContext } from "@t3-connector/core/cli-support";
import type { ReadConfig, ReadEnvironmentConfig } from "@t3-connector/core/config";
import { type OperateConfigName, planOperateRenewal, readPairingCodes } from "@t3-connector/core/pairing";
import { addOperateConfigs, CODE_PURPOSES, readClientLabel, revokeAdvice } from "./also-configs.js";
import { type CliIo, writeJson } from "./io.js";
import { pairEnvironment } from "./pair.js";

/**
 * `t3-connector pair --environment X --also write,ops`: renews the machine's tokens in one run. The
 * first code on stdin becomes X's read token (as `pair` alone does); the second one operate token,
 * stored in the token files that write.json and ops.json already name for the same environmentId.
 * Every file is checked before a code is spent; no config file is rewritten.
 */
export async function pairAlsoCommand(
  io: CliIo,
  config: ReadConfig,
  entry: ReadEnvironmentConfig,
  also: readonly OperateConfigName[],
): Promise<number> {
  const plans = await planOperateRenewal({
    names: also,
    environmentId: entry.environmentId,
    readTokenFiles: config.environments.map((env) => env.tokenFile),
    context: configPathContext(io),
  });
  const [code = "", operateCode = ""] = await readPairingCodes(io, [
    CODE_PURPOSES.read,
    CODE_PURPOSES.operate,
  ]);
  const paired = await pairEnvironment(io, entry, code);
  const operate = await addOperateConfigs(io, {
    alias: entry.alias,
    environmentId: entry.environmentId,
    transport: entry.transport,
    plans,
    code: operateCode,
    key: "alsoPaired",
    ifFailed:
      `The read token was renewed. Create a new pairing code and run \`t3-connector-write pair --environment ${entry.alias}\`; ` +
      "ops' token file can then be refreshed with `t3-connector-ops environments remove` and `add`.",
  });
  writeJson(io, {
    ...paired,
    ...operate.report,
    revoke: [revokeAdvice("read", [paired.savedTo], readClientLabel()), ...operate.revoke],
    note: "The tokens these files held before stay valid at T3 until you revoke them there.",
  });
  return operate.ok ? 0 : 1;
}
