/**
 * `serve --http` with the OAuth session profile (packages/oauth, ADR 0024): on when the read
 * config has an `oauth` section or `--oauth` is given (`--issuer` overrides the section's issuer).
 * The profile brings its routes and the guard for `/mcp`; the issuer's name joins the Host and
 * Origin allowlist, since that is the name clients and the passkey page use.
 */
import { ConnectorError } from "@t3-connector/core";
import type { CliIo } from "@t3-connector/core/cli-support";
import type { ReadConfig } from "@t3-connector/core/config";
import {
  type OAuthProfile,
  type OAuthProfileOptions,
  type OAuthSettings,
  openOAuthProfile,
  parseOAuthSettings,
} from "@t3-connector/oauth";
import type { HttpServeOptions } from "./http-options.js";
import { isLoopbackHost } from "./loopback.js";

/** The profile's settings when OAuth is on (section or flag), else undefined. */
export function oauthSettingsForServe(
  io: CliIo,
  config: ReadConfig,
  options: HttpServeOptions,
  /** Whether `t3:write` may be asked for: a gate's write config was found (ADR 0049). */
  writes: boolean,
): OAuthSettings | undefined {
  if (config.oauth === undefined && options.oauth === undefined) return undefined;
  if (options.authTokenFile !== undefined) {
    throw new ConnectorError(
      "invalid_input",
      "--auth-token-file and OAuth (the config's oauth section or --oauth) exclude each other: drop --auth-token-file, or remove the oauth section",
    );
  }
  const section = {
    ...(config.oauth ?? {}),
    ...(options.oauth?.issuer === undefined ? {} : { issuer: options.oauth.issuer }),
  };
  return parseOAuthSettings(section, {
    configPath: config.path,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
    ...(io.env === undefined ? {} : { env: io.env }),
    writes,
  });
}

/**
 * Under OAuth any address may be bound when the issuer is https (a proxy or tunnel terminates
 * TLS in front), but a plain-http issuer is for this machine only: off loopback its tokens and
 * passkey page would cross the network in clear.
 */
export function assertOAuthBind(options: Pick<HttpServeOptions, "host">, settings: OAuthSettings): void {
  if (settings.issuer.startsWith("https://") || isLoopbackHost(options.host)) return;
  throw new ConnectorError(
    "bind_not_allowed",
    `--host ${options.host} is not a loopback address, and the issuer ${settings.issuer} is plain http, which is for this machine only: bind 127.0.0.1, or serve an https issuer through a proxy or tunnel`,
    { details: { host: options.host, issuer: settings.issuer } },
  );
}

export function openOAuthForServe(
  settings: OAuthSettings,
  extras: Pick<OAuthProfileOptions, "log" | "fetcher" | "clientAddress">,
): Promise<OAuthProfile> {
  return openOAuthProfile(settings, extras);
}

/** The allowlist's extra names for the issuer (its Host, and its origin for the page's calls). */
export function issuerAllowances(profile: OAuthProfile | undefined): { hosts: string[]; origins: string[] } {
  if (profile === undefined) return { hosts: [], origins: [] };
  return { hosts: [profile.settings.host], origins: [profile.settings.issuer] };
}
