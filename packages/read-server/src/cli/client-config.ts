import { isConnectorError } from "@t3-connector/core";
import type { CliIo } from "@t3-connector/core/cli-support";
import { clientConfigSnippet, configPathContext } from "@t3-connector/core/cli-support";
import { loadReadConfig, readConfigPath } from "@t3-connector/core/config";
import { parseOAuthSettings } from "@t3-connector/oauth";
import { DEFAULT_HTTP_URL, httpClientConfigSnippet } from "../http/http-client-config.js";
import { oauthClientConfigSnippet } from "../http/oauth-client-config.js";
import { binPath } from "../package-info.js";
import { READ_SERVER_NAME } from "../server-name.js";

/**
 * `t3-connector client-config <client>`: prints what to paste into `client` to start the read
 * server, with this machine's node, this package's bin and the read config in use; with `http`,
 * what reaches a running `serve --http` instead: with OAuth (the read config's `oauth` section),
 * the issuer's `/mcp` URL and no token; else the bearer-token snippet for `--url` (default
 * 127.0.0.1:8000).
 */
export async function clientConfigCommand(
  io: CliIo,
  client: string,
  http?: { url?: string },
): Promise<number> {
  if (http !== undefined) {
    const issuerUrl = await oauthMcpUrl(io);
    const name = READ_SERVER_NAME;
    io.stdout.write(
      issuerUrl === undefined
        ? httpClientConfigSnippet(client, { name, url: http.url ?? DEFAULT_HTTP_URL })
        : oauthClientConfigSnippet(client, { name, url: http.url ?? issuerUrl }),
    );
    return 0;
  }
  const configPath = readConfigPath(configPathContext(io));
  io.stdout.write(
    clientConfigSnippet(client, {
      name: READ_SERVER_NAME,
      node: process.execPath,
      bin: binPath(),
      args: ["serve"],
      env: { T3_CONNECTOR_CONFIG: configPath },
    }),
  );
  return 0;
}

/** The issuer's `/mcp` when the read config has an `oauth` section; undefined otherwise. */
async function oauthMcpUrl(io: CliIo): Promise<string | undefined> {
  const context = configPathContext(io);
  // No config yet: the bearer snippet. A config that does not load is reported, not guessed past.
  const config = await loadReadConfig(context).catch((error: unknown) => {
    if (isConnectorError(error, "config_not_found")) return undefined;
    throw error;
  });
  if (config?.oauth === undefined) return undefined;
  return parseOAuthSettings(config.oauth, {
    configPath: config.path,
    ...(io.homeDir === undefined ? {} : { homeDir: io.homeDir }),
  }).resource;
}
