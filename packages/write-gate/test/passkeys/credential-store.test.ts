import { chmod, lstat, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredCredential } from "@t3-connector/core/passkeys";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadCredentials, Passkeys, saveCredentials } from "../../src/passkeys/index.js";
import { ManualClock } from "../security/support/gate.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "t3c-passkeys-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CREDENTIAL: StoredCredential = {
  id: "cred-1",
  publicKey: Buffer.from("key").toString("base64url"),
  counter: 0,
  transports: ["internal"],
  createdAt: "2026-12-02T12:00:00.000Z",
};

describe("credential store", () => {
  it("writes credentials.json with mode 600 and leaves no temp file behind", async () => {
    const path = join(dir, "state", "credentials.json");
    await saveCredentials(path, [CREDENTIAL]);
    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect((await lstat(join(dir, "state"))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, "state"))).toEqual(["credentials.json"]);
    expect(await loadCredentials(path)).toEqual([CREDENTIAL]);
    await saveCredentials(path, []);
    expect(await loadCredentials(path)).toEqual([]);
  });

  it("starts empty when there is no file", async () => {
    expect(await loadCredentials(join(dir, "credentials.json"))).toEqual([]);
  });

  it("refuses a credentials file that other users can read", async () => {
    const path = join(dir, "credentials.json");
    await writeFile(path, "[]");
    await chmod(path, 0o644);
    await expect(loadCredentials(path)).rejects.toThrow(/mode 600/);
    await expect(Passkeys.open({ path, port: 7433, clock: new ManualClock() })).rejects.toThrow(/mode 600/);
  });

  it("refuses a symlink on read and on write, leaving its target untouched", async () => {
    const target = join(dir, "elsewhere.json");
    await writeFile(target, "[]", { mode: 0o600 });
    const path = join(dir, "credentials.json");
    await symlink(target, path);
    await expect(loadCredentials(path)).rejects.toThrow(/not a regular file/);
    await expect(saveCredentials(path, [CREDENTIAL])).rejects.toThrow(/not a regular file/);
    expect(await loadCredentials(target)).toEqual([]);
  });

  it("refuses a file that is not a credential list", async () => {
    const path = join(dir, "credentials.json");
    await writeFile(path, '[{"id":"x"}]', { mode: 0o600 });
    await expect(loadCredentials(path)).rejects.toThrow();
  });

  it("lists and removes passkeys, persisting the removal", async () => {
    const path = join(dir, "credentials.json");
    await saveCredentials(path, [CREDENTIAL, { ...CREDENTIAL, id: "cred-2" }]);
    const passkeys = await Passkeys.open({ path, port: 7433, clock: new ManualClock() });
    expect(passkeys.list().map((passkey) => passkey.id)).toEqual(["cred-1", "cred-2"]);
    expect(await passkeys.remove("cred-1")).toBe(true);
    expect(await passkeys.remove("cred-1")).toBe(false);
    expect((await loadCredentials(path)).map((credential) => credential.id)).toEqual(["cred-2"]);
  });
});
