import { clientConfigSnippet, configPathContext } from "@t3-connector/core/cli-support";
import { readConfigPath } from "@t3-connector/core/config";
import { httpClientConfigSnippet } from "../http/http-client-config.js";
import { binPath } from "../package-info.js";
import { READ_SERVER_NAME } from "../server.js";
import type { CliIo } from "./io.js";

export { CLIENT_NAMES } from "@t3-connector/core/cli-support";

/**
 * `t3-connector client-config <client>`: prints what to paste into `client` to start the read
 * server, with this machine's node, this package's bin and the read config in use; with `http`,
 * what reaches a running `serve --http` at its URL instead.
 */
export function clientConfigCommand(io: CliIo, client: string, http?: { url: string }): number {
  if (http !== undefined) {
    io.stdout.write(httpClientConfigSnippet(client, { name: READ_SERVER_NAME, url: http.url }));
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
