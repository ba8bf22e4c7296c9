import { fileURLToPath } from "node:url";
import type { CliIo } from "@t3-connector/core/cli-support";
import { clientConfigSnippet, configPathContext } from "@t3-connector/core/cli-support";
import { writeConfigPath } from "@t3-connector/core/config";

/**
 * `t3-connector-write client-config <client>`: what to paste into `client` to start the write
 * bridge, with this machine's node, this package's bin and the write config in use. The gate runs
 * beside it in its own terminal (`t3-connector-write gate`).
 */
export function clientConfigCommand(io: CliIo, client: string): number {
  const configPath = writeConfigPath(configPathContext(io));
  io.stdout.write(
    clientConfigSnippet(client, {
      name: "t3-connector-write",
      node: process.execPath,
      // `src/process/` and `dist/process/` are both two levels below the package root.
      bin: fileURLToPath(new URL("../../bin/t3-connector-write.js", import.meta.url)),
      args: ["bridge"],
      env: { T3_CONNECTOR_WRITE_CONFIG: configPath },
    }),
  );
  return 0;
}
