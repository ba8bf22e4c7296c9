import { describe, expect, it } from "vitest";
import { parseWriteConfig, writeConfigPath } from "../../src/config/index.js";
import { ConnectorError } from "../../src/errors.js";

const HOME = "/home/tester";

function base(overrides: Record<string, unknown> = {}) {
  return {
    port: 8787,
    stateDir: "~/.local/state/t3-connector-write",
    environments: {
      local: { environmentId: "env-a", url: "http://127.0.0.1:3773", tokenFile: "~/tokens/write-a" },
    },
    ...overrides,
  };
}

function failure(raw: unknown): ConnectorError {
  try {
    parseWriteConfig(raw, { path: "/cfg/write.json", homeDir: HOME });
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("write config", () => {
  it("accepts no environment at all, so the gate can start and say how to add one", () => {
    const config = parseWriteConfig(base({ environments: {} }), { path: "/cfg/write.json", homeDir: HOME });
    expect(config.environments).toEqual([]);
    expect(config.default).toBeUndefined();
  });

  it("parses port, stateDir, channel, passkey and environments", () => {
    const config = parseWriteConfig(
      base({
        channel: { organization: "acme", tunnelId: "tunnel_Ab12" },
        passkey: { rpName: "T3 gate", userName: "me" },
      }),
      { path: "/cfg/write.json", homeDir: HOME },
    );
    expect(config).toEqual({
      path: "/cfg/write.json",
      port: 8787,
      stateDir: "/home/tester/.local/state/t3-connector-write",
      channel: { organization: "acme", tunnelId: "tunnel_Ab12" },
      passkey: { rpName: "T3 gate", userName: "me" },
      environments: [
        {
          alias: "local",
          environmentId: "env-a",
          transport: { kind: "url", url: "http://127.0.0.1:3773" },
          tokenFile: "/home/tester/tokens/write-a",
        },
      ],
    });
  });

  it("uses T3_CONNECTOR_WRITE_CONFIG, else ~/.config/t3-connector/write.json", () => {
    expect(writeConfigPath({ homeDir: HOME, env: {} })).toBe("/home/tester/.config/t3-connector/write.json");
    expect(writeConfigPath({ homeDir: HOME, env: { T3_CONNECTOR_WRITE_CONFIG: "/w.json" } })).toBe("/w.json");
  });

  it.each([
    ["porta", "port"],
    ["estado", "stateDir"],
    ["canal", "channel"],
    ["ambientes", "environments"],
    ["padrao", "default"],
  ])("stops start-up on the legacy key %s, naming %s", (legacy, replacement) => {
    const error = failure({ ...base(), [legacy]: 1 });
    expect(error.code).toBe("config_legacy_key");
    expect(error.message).toContain(`"${legacy}" is now "${replacement}"`);
  });

  it("stops start-up on ssh.portaRemota in a write environment", () => {
    const error = failure(
      base({
        environments: { r: { environmentId: "e", ssh: { host: "h", portaRemota: 3773 }, tokenFile: "/t" } },
      }),
    );
    expect(error.code).toBe("config_legacy_key");
    expect(error.message).toContain('"environments.r.ssh.portaRemota" is now "remotePort"');
  });

  it.each([
    "projects",
    "actions",
    "allowedProjects",
    "projetos",
    "acoes",
    "projetosPermitidos",
    "allowed_projects",
    "Actions",
    "ações",
  ])("refuses the allowlist key %s in a write environment", (key) => {
    const error = failure(
      base({ environments: { a: { environmentId: "e", url: "https://h", tokenFile: "/t", [key]: ["x"] } } }),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(`"environments.a.${key}"`);
    expect(error.message).toContain("passkey holder");
  });

  it.each([
    ["a missing port", { port: undefined }, "port: is required"],
    ["a port out of range", { port: 70_000 }, "port:"],
    ["a missing stateDir", { stateDir: undefined }, "stateDir: is required"],
    ["a relative stateDir", { stateDir: "state" }, "stateDir: must be an absolute path"],
    ["a bad tunnelId", { channel: { organization: "o", tunnelId: "tun-1" } }, "channel.tunnelId: must match"],
    [
      "an unknown channel key",
      { channel: { organization: "o", tunnelId: "tunnel_a", x: 1 } },
      "channel.x: unknown key",
    ],
    ["an empty passkey label", { passkey: { rpName: "" } }, "passkey.rpName"],
    ["a 65-character passkey label", { passkey: { userName: "u".repeat(65) } }, "passkey.userName"],
    ["an unknown passkey key", { passkey: { name: "x" } }, "passkey.name: unknown key"],
    ["an unknown top-level key", { journal: "x" }, "journal: unknown key"],
    [
      "a non-loopback http url",
      { environments: { a: { environmentId: "e", url: "http://192.168.1.2", tokenFile: "/t" } } },
      "environments.a.url: must be https",
    ],
  ])("refuses %s", (_name, overrides, expected) => {
    const error = failure(base(overrides));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(expected);
  });

  it("accepts a 64-character passkey label and no channel", () => {
    const config = parseWriteConfig(base({ passkey: { userName: "u".repeat(64) } }), {
      path: "/w",
      homeDir: HOME,
    });
    expect(config.passkey).toEqual({ userName: "u".repeat(64) });
    expect(config.channel).toBeUndefined();
  });
});

describe("write config: remoteApproval (approval from afar)", () => {
  it("keeps the origin and finds the OAuth state directory (given, or the OAuth default)", () => {
    const given = parseWriteConfig(
      base({ remoteApproval: { origin: "https://t3c.example.com/", oauthStateDir: "~/oauth" } }),
      { path: "/cfg/write.json", homeDir: HOME },
    );
    expect(given.remoteApproval).toEqual({
      origin: "https://t3c.example.com",
      oauthStateDir: `${HOME}/oauth`,
    });
    const defaulted = parseWriteConfig(base({ remoteApproval: { origin: "http://localhost:8443" } }), {
      path: "/cfg/write.json",
      homeDir: HOME,
    });
    expect(defaulted.remoteApproval?.oauthStateDir).toMatch(/\/t3-connector\/oauth$/);
    expect(
      parseWriteConfig(base(), { path: "/cfg/write.json", homeDir: HOME }).remoteApproval,
    ).toBeUndefined();
  });

  it("refuses an origin with a path, plain http off localhost, or an unknown key", () => {
    for (const remoteApproval of [
      { origin: "https://t3c.example.com/approve" },
      { origin: "http://t3c.example.com" },
      { origin: "not a url" },
      { origin: "https://t3c.example.com", extra: true },
    ]) {
      expect(failure(base({ remoteApproval })).code).toBe("config_invalid");
    }
  });
});
