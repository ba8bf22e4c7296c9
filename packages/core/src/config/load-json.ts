import { readFile } from "node:fs/promises";
import { ConnectorError } from "../errors.js";

/** Reads and parses a JSON config file; a missing file and bad JSON get distinct codes. */
export async function loadJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ConnectorError("config_not_found", `${what} not found at ${path}`, { details: { path } });
    }
    throw new ConnectorError("config_invalid", `${what} at ${path} cannot be read (${code ?? "error"})`, {
      details: { path },
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConnectorError(
      "config_invalid",
      `${what} at ${path} is not valid JSON: ${(error as Error).message}`,
      { details: { path } },
    );
  }
}
