import { startSimulator } from "@t3-connector/t3-sim";
import type { TokenFiles } from "@t3-connector/test-support/token-files";
import { describe, expect, it } from "vitest";
import type { EnvironmentConfig } from "../../src/config/index.js";
import { EnvironmentRegistry, OPERATE_SCOPES, READ_SCOPES } from "../../src/environments/index.js";
import type { ConnectorError } from "../../src/errors.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";
import { type Simulator, useSimulatedEnvironments } from "./support/simulated-environments.js";

let sim: Simulator;
let tokens: TokenFiles;

const registries = useSimulatedEnvironments(
  {
    environments: [
      { alias: "alpha", environmentId: "env-alpha", seed: "demo" },
      { alias: "beta", environmentId: "env-beta", seed: "empty", transitional: true },
    ],
    clock: "real",
  },
  (started) => {
    ({ sim, tokens } = started);
  },
);

function simEnvironment(alias: string) {
  return sim.environment(alias);
}

async function config(
  alias: string,
  token: "read" | "operate" = "read",
  overrides: Partial<EnvironmentConfig> = {},
): Promise<EnvironmentConfig> {
  const env = simEnvironment(alias);
  const secret = token === "read" ? env.readToken : env.operateToken;
  return {
    alias,
    environmentId: env.environmentId,
    transport: { kind: "url", url: env.url },
    tokenFile: await tokens.write(`${alias}-${token}`, secret),
    ...overrides,
  };
}

/** A fetch that counts requests by path, on top of the real one. */
function countingFetch() {
  const counts = new Map<string, number>();
  const fetchFn: typeof fetch = (input, init) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    return fetch(input, init);
  };
  return { fetch: fetchFn, count: (path: string) => counts.get(path) ?? 0 };
}

function registry(
  environments: EnvironmentConfig[],
  options: Partial<ConstructorParameters<typeof EnvironmentRegistry>[0]> = {},
) {
  return registries.keep(new EnvironmentRegistry({ environments, requiredScopes: READ_SCOPES, ...options }));
}

describe("environment registry", () => {
  it("verifies a protocol-2 environment and exposes its label, version and an HTTP client", async () => {
    const reg = registry([await config("alpha")]);
    const env = await reg.connect("alpha");
    expect(env.alias).toBe("alpha");
    expect(env.environmentId).toBe("env-alpha");
    expect(env.name).toBe(simEnvironment("alpha").label);
    expect(env.version).toEqual(expect.any(String));
    expect(env.protocol).toBe("descriptor");
    expect(env.scopes).toEqual(["orchestration:read"]);
    const shell = await env.http.getShell();
    expect(shell.schemaVersion).toBe(2);
  });

  it("resolves by alias or environmentId and refuses unknown or missing references", async () => {
    const reg = registry([await config("alpha"), await config("beta")]);
    expect(reg.resolve("alpha").environmentId).toBe("env-alpha");
    expect(reg.resolve("env-beta").alias).toBe("beta");
    const unknown = (() => {
      try {
        reg.resolve("gamma");
      } catch (error) {
        return error as ConnectorError;
      }
    })();
    expect(unknown?.code).toBe("environment_unknown");
    expect(unknown?.message).toContain("alpha, beta");
    expect(() => reg.resolve(undefined)).toThrow(expect.objectContaining({ code: "environment_required" }));
    await expect(reg.connect("gamma")).rejects.toMatchObject({ code: "environment_unknown" });
  });

  it("fails closed when the server answers as another environment, naming both ids", async () => {
    const reg = registry([await config("alpha", "read", { environmentId: "env-expected" })]);
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("environment_mismatch");
    expect(error.message).toContain("env-alpha");
    expect(error.message).toContain("env-expected");

    simEnvironment("beta").faults.set({ wrongEnvironmentId: "env-impostor" });
    const reg2 = registry([await config("beta")]);
    const second = await caughtConnectorError(reg2.connect("beta"));
    expect(second.code).toBe("environment_mismatch");
    expect(second.message).toContain("env-impostor");
  });

  it("accepts a transitional V2 server through its shell schemaVersion 2", async () => {
    const reg = registry([await config("beta")]);
    const env = await reg.connect("beta");
    expect(env.protocol).toBe("shell-schema");
  });

  it("refuses a token with more scopes than required, naming the extra scope but not the token", async () => {
    const reg = registry([await config("alpha", "operate")]);
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("scope_mismatch");
    expect(error.message).toContain("orchestration:operate");
    expect(error.message).not.toContain(simEnvironment("alpha").operateToken);
    expect(error.details).toMatchObject({ missing: [], extra: ["orchestration:operate"] });
  });

  it("refuses scopes added by the server (faults.extraScopes)", async () => {
    simEnvironment("alpha").faults.set({ extraScopes: ["terminal:operate"] });
    const reg = registry([await config("alpha")]);
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("scope_mismatch");
    expect(error.message).toContain("terminal:operate");
  });

  it("refuses a token that lacks a required scope (a read token for the gate)", async () => {
    const reg = registry([await config("alpha", "read")], { requiredScopes: OPERATE_SCOPES });
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("scope_mismatch");
    expect(error.details).toMatchObject({ missing: ["orchestration:operate"], extra: [] });
    const gate = registry([await config("alpha", "operate")], { requiredScopes: OPERATE_SCOPES });
    expect((await gate.connect("alpha")).scopes).toEqual(["orchestration:read", "orchestration:operate"]);
  });

  it("refuses an expired token without printing it", async () => {
    simEnvironment("alpha").faults.set({ expireTokens: true });
    const reg = registry([await config("alpha")]);
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("unauthorized");
    expect(error.message).not.toContain(simEnvironment("alpha").readToken);
  });

  it("drops a verified connection after a 401 and verifies again on the next use", async () => {
    const reg = registry([await config("alpha")]);
    const first = await reg.connect("alpha");
    simEnvironment("alpha").faults.set({ expireTokens: true });
    await expect(first.http.getShell()).rejects.toMatchObject({ code: "unauthorized", status: 401 });
    await expect(reg.connect("alpha")).rejects.toMatchObject({ code: "unauthorized" });
    simEnvironment("alpha").faults.clear();
    const second = await reg.connect("alpha");
    expect(second).not.toBe(first);
  });

  it("drops a verified connection when its server becomes unreachable", async () => {
    const own = await startSimulator({
      environments: [{ alias: "gone", environmentId: "env-gone", seed: "empty" }],
    });
    try {
      const env = own.environment("gone");
      const reg = registry([
        {
          alias: "gone",
          environmentId: env.environmentId,
          transport: { kind: "url", url: env.url },
          tokenFile: await tokens.write("gone", env.readToken),
        },
      ]);
      const first = await reg.connect("gone");
      await env.stop();
      await expect(first.http.getShell()).rejects.toMatchObject({ code: "unavailable" });
      // Not the cached connection: a fresh attempt, which cannot reach the server either.
      await expect(reg.connect("gone")).rejects.toMatchObject({ code: "unavailable" });
    } finally {
      await own.close();
    }
  });

  it("opens the connection lazily, once, for concurrent callers", async () => {
    const counting = countingFetch();
    const reg = registry([await config("alpha")], { fetch: counting.fetch });
    expect(counting.count("/.well-known/t3/environment")).toBe(0);
    const all = await Promise.all(Array.from({ length: 5 }, () => reg.connect("alpha")));
    expect(new Set(all).size).toBe(1);
    expect(counting.count("/.well-known/t3/environment")).toBe(1);
    expect(counting.count("/api/auth/session")).toBe(1);
    expect(await reg.connect("env-alpha")).toBe(all[0]);
    expect(counting.count("/.well-known/t3/environment")).toBe(1);
  });

  it("bounds opening a connection by its own deadline", async () => {
    simEnvironment("alpha").faults.set({ hang: true });
    const reg = registry([await config("alpha")], { connectTimeoutMs: 300 });
    const error = await caughtConnectorError(reg.connect("alpha"));
    expect(error.code).toBe("timeout");
  });

  it("lets one caller stop waiting without cancelling the shared connection", async () => {
    simEnvironment("alpha").faults.set({ latencyMs: 200 });
    const reg = registry([await config("alpha")]);
    const controller = new AbortController();
    const impatient = reg.connect("alpha", { signal: controller.signal });
    const patient = reg.connect("alpha");
    controller.abort();
    await expect(impatient).rejects.toMatchObject({ code: "cancelled" });
    expect((await patient).environmentId).toBe("env-alpha");
  });

  it("opens the RPC client lazily and opens it again after the socket closed", async () => {
    const reg = registry([await config("alpha")]);
    const env = await reg.connect("alpha");
    const rpc = await env.rpc();
    expect(rpc.isOpen).toBe(true);
    expect(await env.rpc()).toBe(rpc);
    const closed = new Promise<void>((resolve) => rpc.onClose(() => resolve()));
    simEnvironment("alpha").dropSockets();
    await closed;
    const again = await env.rpc();
    expect(again).not.toBe(rpc);
    expect(again.isOpen).toBe(true);
    await again.probe();
  });

  it("closes every connection and socket on registry.close()", async () => {
    const reg = registry([await config("alpha"), await config("beta")]);
    const alpha = await reg.connect("alpha");
    const rpc = await alpha.rpc();
    await reg.connect("beta");
    await reg.close();
    expect(rpc.isOpen).toBe(false);
    await expect(reg.connect("alpha")).rejects.toMatchObject({ code: "unavailable" });
    await expect(alpha.rpc()).rejects.toMatchObject({ code: "unavailable" });
  });

  it("reads the token file with its permission checks at connect time", async () => {
    const reg = registry([await config("alpha", "read", { tokenFile: `${tokens.dir}/missing` })]);
    await expect(reg.connect("alpha")).rejects.toMatchObject({ code: "token_file_invalid" });
  });
});
