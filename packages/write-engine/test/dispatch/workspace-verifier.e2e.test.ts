/**
 * The workspace check where the environment runs. There is no sshd on the test machines, so a
 * stand-in `ssh` does what the remote side does: it joins the remote words into one command line
 * and runs it with `sh -c`, which is exactly where bad quoting would bite.
 */
import { chmod, mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  executionDomainVerifier,
  shellQuote,
  sshRealpath,
  type WorkspaceTarget,
} from "../../src/dispatch/index.js";

const STAND_IN = String.raw`#!/usr/bin/env node
const { spawnSync } = require("node:child_process");
const args = process.argv.slice(2);
const at = args.indexOf("realpath");
const host = args[at - 1];
if (at < 1 || args[0] !== "-o" || args[1] !== "BatchMode=yes") { process.stderr.write("unexpected arguments\n"); process.exit(2); }
if (host.startsWith("down-")) { process.stderr.write("ssh: connect to host " + host + ": refused\n"); process.exit(255); }
if (host.startsWith("hang-")) { setInterval(() => {}, 1000); return; }
const result = spawnSync("/bin/sh", ["-c", args.slice(at).join(" ")], { stdio: ["ignore", "inherit", "inherit"] });
process.exit(result.status ?? 1);
`;

let root: string;
let sshPath: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "t3c-ssh-realpath-")));
  sshPath = join(root, "ssh");
  await writeFile(sshPath, STAND_IN);
  await chmod(sshPath, 0o755);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const sshTarget = (host: string) =>
  ({ environment: {}, transport: { kind: "ssh", host, remotePort: 3773 } }) as unknown as WorkspaceTarget;

describe("workspace verification where the environment runs", () => {
  it("answers the canonical path on the ssh host, following symlinks", async () => {
    const real = join(root, "real");
    await mkdir(real);
    await symlink(real, join(root, "link"));
    expect(await sshRealpath("box", join(root, "link"), { sshPath })).toBe(real);
    expect(await executionDomainVerifier({ sshPath })(sshTarget("box"), real)).toBe(real);
  });

  it("passes a hostile path as one quoted word: nothing in it runs", async () => {
    const odd = join(root, "it's $(touch pwned) `touch pwned2` here");
    await mkdir(odd);
    expect(await sshRealpath("box", odd, { sshPath })).toBe(odd);
    await expect(stat(join(process.cwd(), "pwned"))).rejects.toThrow();
    await expect(stat(join(root, "pwned"))).rejects.toThrow();
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it("answers null for a missing path, an unreachable host and a host that never answers", async () => {
    expect(await sshRealpath("box", join(root, "missing"), { sshPath })).toBeNull();
    expect(await sshRealpath("down-box", root, { sshPath })).toBeNull();
    expect(await sshRealpath("hang-box", root, { sshPath, timeoutMs: 200 })).toBeNull();
  });

  it("checks URL environments with realpath on this machine", async () => {
    const url = {
      environment: {},
      transport: { kind: "url", url: "http://127.0.0.1:1" },
    } as unknown as WorkspaceTarget;
    expect(await executionDomainVerifier({ sshPath })(url, root)).toBe(root);
    expect(await executionDomainVerifier({ sshPath })(url, join(root, "missing"))).toBeNull();
  });
});
