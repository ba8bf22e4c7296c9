/**
 * Verifying a workspace path where the environment runs: the path must
 * exist there and its canonical form must be an approved root. A URL environment is checked with
 * `realpath` on this machine; an SSH environment with `ssh <host> realpath -e -- '<path>'`, since
 * the local file system says nothing about the remote one.
 */
import { type ChildProcess, spawn as nodeSpawn } from "node:child_process";
import { realpath } from "node:fs/promises";
import type { SpawnFunction } from "@t3-connector/core/environments";
import type { WorkspaceTarget, WorkspaceVerifier } from "./types.js";

export const WORKSPACE_VERIFY_TIMEOUT_MS = 15_000;
const MAX_OUTPUT_BYTES = 64 * 1024;

/** Local realpath: the canonical path, or null when it does not exist. */
export async function localRealpath(_target: WorkspaceTarget, path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** One single-quoted word for the remote shell (ssh joins its arguments into one command line). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export function sshRealpathArgs(host: string, path: string): string[] {
  return [
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=8",
    "-o",
    "ControlMaster=no",
    "-o",
    "ControlPath=none",
    "-o",
    "ForwardAgent=no",
    host,
    "realpath",
    "-e",
    "--",
    shellQuote(path),
  ];
}

export interface WorkspaceVerifierOptions {
  /** The ssh executable. Default `ssh` from PATH. */
  sshPath?: string;
  spawn?: SpawnFunction;
  timeoutMs?: number;
}

/** Runs `realpath -e` on the SSH host; any failure (exit, timeout, odd output) is null. */
export function sshRealpath(host: string, path: string, options: WorkspaceVerifierOptions = {}) {
  const spawn = options.spawn ?? (nodeSpawn as unknown as SpawnFunction);
  const timeoutMs = options.timeoutMs ?? WORKSPACE_VERIFY_TIMEOUT_MS;
  return new Promise<string | null>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(options.sshPath ?? "ssh", sshRealpathArgs(host, path), {
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      resolve(null);
      return;
    }
    let output = "";
    let settled = false;
    const finish = (value: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(null);
    }, timeoutMs);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      if (output.length > MAX_OUTPUT_BYTES) child.kill("SIGKILL");
    });
    child.on("error", () => finish(null));
    child.on("close", (code) => {
      const lines = output.split("\n").filter((line) => line !== "");
      const only = lines.length === 1 ? lines[0] : undefined;
      finish(code === 0 && only !== undefined && only.startsWith("/") ? only : null);
    });
  });
}

/** The default verifier: local realpath for URL environments, `ssh realpath` for SSH ones. */
export function executionDomainVerifier(options: WorkspaceVerifierOptions = {}): WorkspaceVerifier {
  return (target, path) =>
    target.transport.kind === "ssh"
      ? sshRealpath(target.transport.host, path, options)
      : localRealpath(target, path);
}
