import { randomBytes, timingSafeEqual } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { ConnectorError } from "@t3-connector/core";

export const CAPABILITY_FILE = "relay-capability";

/** A fresh per-boot capability: 32 random bytes, base64url (43 characters). */
export function generateCapability(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Constant-time comparison. The lengths are compared first (the length of a base64url capability
 * is public: 43), then the bytes with `timingSafeEqual` over buffers of equal length.
 */
export function capabilityMatches(expected: string, presented: string | undefined | null): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(presented, "utf8");
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

export type CapabilityFs = Pick<typeof nodeFs, "open" | "rename" | "unlink" | "readdir">;

const CREATE_EXCLUSIVE =
  fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

/**
 * Writes the capability to `<stateDir>/relay-capability` (0600): a private temp file created
 * exclusively (never through a symlink), fsynced, then renamed over the old one — a rename replaces
 * a symlink at the destination instead of following it, so the file is always our regular file.
 */
export async function writeCapabilityFile(
  stateDir: string,
  capability: string,
  fs: CapabilityFs = nodeFs,
): Promise<string> {
  const path = join(stateDir, CAPABILITY_FILE);
  // Temp files a killed gate left behind (the caller holds the state dir's lock: none is live).
  for (const name of await fs.readdir(stateDir).catch(() => [] as string[])) {
    if (name.startsWith(`.${CAPABILITY_FILE}.`)) await fs.unlink(join(stateDir, name)).catch(() => undefined);
  }
  const temp = join(stateDir, `.${CAPABILITY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}`);
  let handle: nodeFs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, CREATE_EXCLUSIVE, 0o600);
    await handle.chmod(0o600);
    await handle.writeFile(capability, "utf8");
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, path);
    const directory = await fs.open(stateDir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConnectorError(
      "state_dir_invalid",
      `the relay capability file ${path} could not be written (${code})`,
      {
        cause: error,
      },
    );
  }
  return path;
}

/** Removes the capability file on shutdown, so a stale capability cannot even be read. */
export async function removeCapabilityFile(stateDir: string, fs: CapabilityFs = nodeFs): Promise<void> {
  await fs.unlink(join(stateDir, CAPABILITY_FILE)).catch(() => undefined);
}
