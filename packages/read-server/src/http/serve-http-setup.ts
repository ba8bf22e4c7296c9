/**
 * What `serve --http` settles before it listens: the bearer token (or the refusal to listen
 * unprotected), the read config and context, and the OAuth profile. A problem comes back as the
 * line to print, with anything already opened closed again.
 */
import { resolve } from "node:path";
import type { LeveledLog } from "@t3-connector/core/cli-support";
import type { ReadConfig } from "@t3-connector/core/config";
import type { MetadataFetcher, OAuthProfile } from "@t3-connector/oauth";
import { type CliIo, describeError } from "../cli/io.js";
import { prepareServe } from "../cli/serve-setup.js";
import type { ProcessReadContextOptions, ReadContext } from "../read-context.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { READ_SERVER_NAME } from "../server.js";
import { assertBindIsProtected, loadBearerToken } from "./bearer-auth.js";
import type { HttpLimits, HttpServeOptions } from "./http-options.js";
import { assertOAuthBind, oauthSettingsForServe, openOAuthForServe } from "./oauth-in-serve.js";

export interface HttpServeSetup {
  readonly config: ReadConfig;
  readonly context: ReadContext;
  readonly bearerToken: string | undefined;
  readonly oauth: OAuthProfile | undefined;
}

export async function setUpHttpServe(
  io: CliIo,
  definitions: readonly ReadToolDefinition[],
  options: HttpServeOptions,
  limits: HttpLimits,
  log: LeveledLog,
  timing: Pick<ProcessReadContextOptions, "deadlines"> & { oauthFetcher?: MetadataFetcher } = {},
): Promise<HttpServeSetup | { problem: string }> {
  let bearerToken: string | undefined;
  try {
    if (options.authTokenFile !== undefined)
      bearerToken = await loadBearerToken(resolve(options.authTokenFile));
  } catch (error) {
    return { problem: `refusing to start: ${describeError(error)}` };
  }
  const { oauthFetcher, ...readTiming } = timing;
  const prepared = await prepareServe(io, definitions, log, readTiming);
  if ("problem" in prepared) return prepared;
  const { config, context } = prepared;
  try {
    // Whether OAuth protects /mcp is known only with the config (its `oauth` section turns it on):
    // each protection has its own rule for which addresses it may bind.
    const settings = oauthSettingsForServe(io, config, options);
    if (settings === undefined) assertBindIsProtected(options.host, options.authTokenFile);
    else assertOAuthBind(options, settings);
    const oauth =
      settings === undefined
        ? undefined
        : await openOAuthForServe(settings, {
            maxBodyBytes: limits.maxBodyBytes,
            log: (line) => log.info(`${READ_SERVER_NAME}: ${line}`),
            ...(oauthFetcher === undefined ? {} : { fetcher: oauthFetcher }),
          });
    return { config, context, bearerToken, oauth };
  } catch (error) {
    await context.registry.close();
    return { problem: `refusing to start: ${describeError(error)}` };
  }
}
