/**
 * @module The profile's durable files: JSON in a private directory (0700), each file 0600, written
 * atomically, never through a symlink. The file rules are core's (`durable/private-file.ts`, shared
 * with the gate's passkey credentials); what is OAuth's own is the schema check and its error code.
 */
import { basename } from "node:path";
import { ConnectorError } from "@t3-connector/core";
import {
  ensurePrivateDirectory,
  nodeJournalFs,
  readPrivateFileText,
  replacePrivateFile,
} from "@t3-connector/core/durable";
import type { z } from "zod";

export function ensureStateDir(path: string): Promise<void> {
  return ensurePrivateDirectory(nodeJournalFs, path, "oauth state directory");
}

/** The parsed file, or `fallback` when there is none. A damaged or open file is refused. */
export async function readPrivateJson<T>(path: string, schema: z.ZodType<T>, fallback: T): Promise<T> {
  const fail = (message: string): ConnectorError => invalid(message, basename(path));
  const text = await readPrivateFileText(path, fail);
  if (text === null) return fallback;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw fail(`${path} is not JSON; repair it, or remove it to start that file afresh`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw fail(
      `${path} does not hold what this version writes there; repair it, or remove it to start that file afresh`,
    );
  return parsed.data;
}

/** Replaces the file with `value`; a resolved promise means it is on disk. */
export function writePrivateJson(path: string, value: unknown): Promise<void> {
  return replacePrivateFile(path, `${JSON.stringify(value, null, 2)}\n`, (message) =>
    invalid(message, basename(path)),
  );
}

/** `file`: the state file's name, which an HTTP answer may show (the path stays in the log). */
function invalid(message: string, file?: string): ConnectorError {
  return new ConnectorError("state_dir_invalid", message, file === undefined ? {} : { details: { file } });
}
