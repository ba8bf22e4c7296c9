/**
 * `serve --http` with the OAuth session profile (packages/oauth, ADR 0024): on when the read
 * config has an `oauth` section or `--oauth` is given (`--issuer` overrides the section's issuer).
 * The profile brings its routes and the guard for `/mcp`; the issuer's name joins the Host and
 * Origin allowlist, since that is the name clients and the passkey page use.
 */
import type { ReadConfig } from "@t3-connector/core/config";
import {
  type MetadataFetcher,
  type OAuthProfile,
  openOAuthProfile,
  parseOAuthSettings,
} from "@t3-connector/oauth";
import type { CliIo } from "../cli/io.js";
import type { HttpServeOptions } from "./http-options.js";

export async function oauthForServe(
  io: CliIo,
  config: ReadConfig,
  options: HttpServeOptions,
  extras: { maxBodyBytes: number; log: (line: string) => void; fetcher?: MetadataFetcher },
): Promise<OAuthProfile | undefined> {
  if (config.oauth === undefined && options.oauth === undefined) return undefined;
  const section = {
    ...(config.oauth ?? {}),
    ...(options.oauth?.issuer === undefined ? {} : { issuer: options.oauth.issuer }),
  };
  const settings = parseOAuthSettings(section, {
    configPath: config.path,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
    ...(io.env === undefined ? {} : { env: io.env }),
  });
  return openOAuthProfile(settings, extras);
}

/** The allowlist's extra names for the issuer (its Host, and its origin for the page's calls). */
export function issuerAllowances(profile: OAuthProfile | undefined): { hosts: string[]; origins: string[] } {
  if (profile === undefined) return { hosts: [], origins: [] };
  return { hosts: [profile.settings.host], origins: [profile.settings.issuer] };
}
