import { randomBytes } from "node:crypto";
import { lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CAPABILITY_FILE,
  capabilityMatches,
  generateCapability,
  removeCapabilityFile,
  writeCapabilityFile,
} from "../../src/relay/index.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("relay capability", () => {
  it("matches only the exact capability", () => {
    const capability = generateCapability();
    expect(capabilityMatches(capability, capability)).toBe(true);
    expect(
      capabilityMatches(capability, `${capability.slice(0, 42)}${capability[42] === "A" ? "B" : "A"}`),
    ).toBe(false);
    expect(capabilityMatches(capability, capability.slice(1))).toBe(false);
    expect(capabilityMatches(capability, `${capability}x`)).toBe(false);
    expect(capabilityMatches(capability, undefined)).toBe(false);
    expect(capabilityMatches(capability, "")).toBe(false);
    expect(generateCapability()).not.toBe(capability);
  });

  it("replaces a symlink planted at its path instead of writing through it", async () => {
    dir = await mkdtemp(join(tmpdir(), "t3c-capability-"));
    const elsewhere = join(dir, "victim");
    await writeFile(elsewhere, "untouched");
    await symlink(elsewhere, join(dir, CAPABILITY_FILE));
    const capability = generateCapability();
    await writeCapabilityFile(dir, capability);
    const stat = await lstat(join(dir, CAPABILITY_FILE));
    expect(stat.isSymbolicLink()).toBe(false);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, CAPABILITY_FILE), "utf8")).toBe(capability);
    expect(await readFile(elsewhere, "utf8")).toBe("untouched");
  });

  it("removes temp files a killed gate left behind, and the file itself on shutdown", async () => {
    dir = await mkdtemp(join(tmpdir(), "t3c-capability-"));
    await writeFile(join(dir, `.${CAPABILITY_FILE}.123.${randomBytes(6).toString("hex")}`), "half");
    await writeCapabilityFile(dir, generateCapability());
    expect(await readdir(dir)).toEqual([CAPABILITY_FILE]);
    await removeCapabilityFile(dir);
    expect(await readdir(dir)).toEqual([]);
  });
});
