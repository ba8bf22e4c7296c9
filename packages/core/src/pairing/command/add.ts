import { terminalPrompt } from "../../cli-support/index.js";
import type { Transport } from "../../config/index.js";
import { ConnectorError } from "../../errors.js";
import { refuseExisting } from "../add-environment.js";
import { readPairingCode } from "../pair-environment.js";
import { readPairingCodes } from "../read-codes.js";
import { draftNewEntry, planOperateSide, probedEnvironmentId, saveNewEntry } from "./add-steps.js";
import { addFailedHint, addOperateConfigs, CODE_PURPOSES } from "./also-configs.js";
import {
  configPathOf,
  type EnvironmentsCommandContext,
  type EnvironmentsReport,
  fetchOf,
} from "./command-context.js";
import type { ConfiguredEnvironment } from "./config-kinds.js";
import { diagnoseEnvironments } from "./diagnose.js";
import type { AddEnvironmentRequest } from "./requests.js";
import { kindRevokeAdvice, refuseReadTokenFile } from "./tokens.js";

/**
 * `environments add <alias> (--url URL | --ssh HOST[:PORT])` in every CLI: checks the alias, the
 * address and the file with the new entry in it; finds the environmentId from the server's
 * descriptor (over our own ssh tunnel for ssh) and refuses an alias or a machine the file already
 * has (`environment_exists`); only then spends the pairing code on a token of exactly the file's
 * scope set, saves it (600 in a 700 directory) and the file (atomically), and verifies the new
 * environment like `diagnose`. The read file also gets its projects, and with `--also` (or a yes
 * on a terminal) a second code becomes one operate token for write.json and ops.json.
 */
export async function addCommand(
  context: EnvironmentsCommandContext,
  request: AddEnvironmentRequest,
): Promise<EnvironmentsReport> {
  const { kind, io } = context;
  const path = configPathOf(context);
  const draft = await draftNewEntry(context, path, request);
  const environmentId = await probedEnvironmentId(draft.transport, request.environmentId, fetchOf(io));
  refuseExisting(draft.document, request.alias, environmentId, path);
  await refuseReadTokenFile(kind, io, draft.tokenFile);
  const prompt = terminalPrompt(io);
  try {
    if (kind.limitsProjects && request.projects === undefined && prompt === undefined) {
      throw new ConnectorError(
        "invalid_input",
        "without a terminal to choose in, give --projects all or --projects ID,ID; the pairing code was not used",
      );
    }
    const entry: ConfiguredEnvironment = {
      alias: request.alias,
      environmentId,
      transport: draft.transport,
      tokenFile: draft.tokenFile,
    };
    const plans = await planOperateSide(context, request, entry, draft, prompt);
    const [code = "", operateCode] =
      plans.length === 0
        ? [await readPairingCode(io, prompt)]
        : await readPairingCodes(io, [CODE_PURPOSES.read, CODE_PURPOSES.operate], prompt);
    const paired = await saveNewEntry(context, { path, draft, entry, code, request, prompt });
    const operate =
      operateCode === undefined
        ? undefined
        : await addOperateConfigs(context, {
            ...operateTarget(entry),
            plans,
            code: operateCode,
            key: "alsoAdded",
            ifFailed: addFailedHint(request.alias),
          });
    const [diagnosis] = await diagnoseEnvironments(context, [entry]);
    const ok = diagnosis?.ok === true && operate?.ok !== false;
    const value = {
      alias: request.alias,
      environmentId,
      configPath: path,
      tokenFile: draft.tokenFile,
      scopes: paired.scopes,
      expiresAt: paired.expiresAt,
      ok,
      diagnosis,
      ...operate?.report,
      revoke: [kindRevokeAdvice(kind, [draft.tokenFile]), ...(operate?.revoke ?? [])],
    };
    return { value, exitCode: ok ? 0 : 1 };
  } finally {
    prompt?.close();
  }
}

function operateTarget(entry: ConfiguredEnvironment): {
  alias: string;
  environmentId: string;
  transport: Transport;
} {
  return { alias: entry.alias, environmentId: entry.environmentId, transport: entry.transport };
}
