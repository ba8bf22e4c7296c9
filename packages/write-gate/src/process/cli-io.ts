import { isConnectorError } from "@t3-connector/core";
import { type CliIo, configPathContext, readPackageVersion } from "@t3-connector/core/cli-support";
import { loadWriteConfig, type WriteConfig } from "@t3-connector/core/config";

export function errorJson(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: "internal", message: "unexpected failure" };
}

export function loadCliWriteConfig(io: CliIo): Promise<WriteConfig> {
  return loadWriteConfig(configPathContext(io));
}

/** From package.json: `src/process/` and `dist/process/` both sit two levels below the package root. */
export function packageVersion(): string {
  return readPackageVersion(new URL("../../package.json", import.meta.url));
}
