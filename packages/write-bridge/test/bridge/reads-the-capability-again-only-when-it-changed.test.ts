/**
 * The relay client checks the capability file on every call (lstat, synchronous: a regular file, not a link,
 * ours, mode 600), and opens it again only when that check shows another version of the file
 * than the one it read last: a rewrite, a rename over it, a chmod (ADR 0062).
 */
import { lstatSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CapabilityCache, readCapability } from "../../src/capability-file.js";

let stateDir: string;
const path = () => join(stateDir, "relay-capability");
const capability = (fill: string) => fill.repeat(43);

/** The node file system, counting each open of the capability file. */
function countingFs() {
  const counted = { opens: 0 };
  const fs = {
    lstatSync,
    open: ((...args: Parameters<typeof nodeFs.open>) => {
      counted.opens += 1;
      return nodeFs.open(...args);
    }) as typeof nodeFs.open,
  };
  return { fs, counted };
}

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "t3c-capability-"));
});

afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("the relay client's capability read", () => {
  it("reuses what it read while the file is the same one, and reads again once it changed", async () => {
    const { fs, counted } = countingFs();
    const cache: CapabilityCache = {};
    await writeFile(path(), capability("a"), { mode: 0o600 });
    expect(await readCapability(stateDir, { fs }, cache)).toBe(capability("a"));
    expect(await readCapability(stateDir, { fs }, cache)).toBe(capability("a"));
    expect(counted.opens).toBe(1);

    // A restarted gate writes a new file (temp and rename): a new inode, read again.
    await writeFile(`${path()}.new`, capability("b"), { mode: 0o600 });
    await nodeFs.rename(`${path()}.new`, path());
    expect(await readCapability(stateDir, { fs }, cache)).toBe(capability("b"));
    expect(counted.opens).toBe(2);

    // The same file made readable by others is refused at once, cache or not.
    await nodeFs.chmod(path(), 0o644);
    await expect(readCapability(stateDir, { fs }, cache)).rejects.toMatchObject({ code: "gate_unavailable" });
    await nodeFs.chmod(path(), 0o600);
    expect(await readCapability(stateDir, { fs }, cache)).toBe(capability("b"));
    expect(counted.opens).toBe(3);

    // Removed: no gate, whatever was read before.
    await nodeFs.unlink(path());
    await expect(readCapability(stateDir, { fs }, cache)).rejects.toMatchObject({ code: "gate_unavailable" });
  });
});
