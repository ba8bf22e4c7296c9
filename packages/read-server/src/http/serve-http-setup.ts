/**
 * What `serve --http` settles before it listens: the bearer token (or the refusal to listen
 * unprotected), the read config and context, and the OAuth profile. A problem comes back as the
 * line to print, with anything already opened closed again.
 */
import { resolve } from "node:path";
import type { LeveledLog } from "@t3-connector/core/cli-support";
import { type CliIo, describeError } from "@t3-connector/core/cli-support";
import type { ReadConfig } from "@t3-connector/core/config";
import type { MetadataFetcher, OAuthProfile } from "@t3-connector/oauth";
import { prepareServe } from "../cli/serve-setup.js";
import type { ProcessReadContextOptions, ReadContext } from "../read-context.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { READ_SERVER_NAME } from "../server-name.js";
import type { ApprovalForward } from "./approval-forward.js";
import { assertBindIsProtected, loadBearerToken } from "./bearer-auth.js";
import { trustedProxySet } from "./client-address.js";
import type { HttpServeOptions } from "./http-options.js";
import { assertOAuthBind, oauthSettingsForServe, openOAuthForServe } from "./oauth-in-serve.js";
import { RequestClients } from "./request-clients.js";
import { type GateLookup, lookUpGate, UrlWrites } from "./url-writes.js";

export interface HttpServeSetup {
  readonly config: ReadConfig;
  readonly context: ReadContext;
  readonly bearerToken: string | undefined;
  readonly oauth: OAuthProfile | undefined;
  /** With the OAuth profile and a write config: the write tools for `t3:write` sessions (ADR 0049). */
  readonly writes: UrlWrites | undefined;
  /** Where the gate was looked for (with the OAuth profile only), to say so at start. */
  readonly gate: GateLookup | undefined;
  /** The approval page from afar, forwarded to the gate, when its origin is the issuer (ADR 0050). */
  readonly approvalForward: ApprovalForward | undefined;
}

export async function setUpHttpServe(
  io: CliIo,
  definitions: readonly ReadToolDefinition[],
  options: HttpServeOptions,
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
    // Writes by URL need sessions to bind leases to: only with the OAuth profile.
    const wantsOAuth = config.oauth !== undefined || options.oauth !== undefined;
    const gate = wantsOAuth ? await lookUpGate(io) : undefined;
    // Whether OAuth protects /mcp is known only with the config (its `oauth` section turns it on):
    // each protection has its own rule for which addresses it may bind.
    const settings = oauthSettingsForServe(io, config, options, gate?.kind === "found");
    if (settings === undefined) assertBindIsProtected(options.host, options.authTokenFile);
    else assertOAuthBind(options, settings);
    // One derivation of the client for every per-client budget: sign-in and approval (ADR 0044).
    const clients = new RequestClients(trustedProxySet(options.trustedProxies ?? []), (line) =>
      log.warn(`${READ_SERVER_NAME}: ${line}`),
    );
    const oauth =
      settings === undefined
        ? undefined
        : await openOAuthForServe(settings, {
            log: (line) => log.info(`${READ_SERVER_NAME}: ${line}`),
            clientAddress: (c) => clients.addressOf(c),
            ...(oauthFetcher === undefined ? {} : { fetcher: oauthFetcher }),
          });
    return { config, context, bearerToken, oauth, gate, ...urlWritesOf(oauth, gate, log, clients) };
  } catch (error) {
    await context.registry.close();
    return { problem: `refusing to start: ${describeError(error)}` };
  }
}

/** The write tools for `t3:write` sessions and the approval page's forward, with OAuth and a gate. */
function urlWritesOf(
  oauth: OAuthProfile | undefined,
  gate: GateLookup | undefined,
  log: LeveledLog,
  clients: RequestClients,
): Pick<HttpServeSetup, "writes" | "approvalForward"> {
  if (oauth === undefined || gate?.kind !== "found") return { writes: undefined, approvalForward: undefined };
  const writes = new UrlWrites({
    config: gate.config,
    log: (line) => log.error(`${READ_SERVER_NAME}: ${line}`),
    info: (line) => log.info(`${READ_SERVER_NAME}: ${line}`),
  });
  // Revoking a session (or its end by any other cause) ends the leases it holds.
  oauth.onSessionEnded((sessionId) => void writes.endSession(sessionId));
  const remote = writes.config.remoteApproval;
  const approvalForward =
    remote?.origin === oauth.settings.issuer
      ? {
          issuerHost: oauth.settings.host,
          gatePort: writes.config.port,
          gateStateDir: writes.config.stateDir,
          clients,
        }
      : undefined;
  return { writes, approvalForward };
}
