import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadReadConfig, parseReadConfig, readConfigPath } from "../../src/config/index.js";
import { ConnectorError } from "../../src/errors.js";

const HOME = "/home/tester";

function environment(overrides: Record<string, unknown> = {}) {
  return {
    environmentId: "env-a",
    url: "https://t3.example.com",
    tokenFile: "~/.config/t3-connector/tokens/a",
    allowedProjects: ["p1"],
    ...overrides,
  };
}

function parse(raw: unknown) {
  return parseReadConfig(raw, { path: "/cfg/config.json", homeDir: HOME });
}

function failure(raw: unknown): ConnectorError {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("read config", () => {
  it("accepts url and ssh environments, expands ~, defaults remotePort and invents no default", () => {
    const config = parse({
      environments: {
        local: environment({ url: "http://127.0.0.1:3773/" }),
        remote: {
          environmentId: "env-b",
          ssh: { host: "devbox.lan" },
          tokenFile: "/abs/token",
          allowedProjects: ["p2", "p3"],
        },
      },
    });
    expect(config.default).toBeUndefined();
    expect(config.environments).toEqual([
      {
        alias: "local",
        environmentId: "env-a",
        transport: { kind: "url", url: "http://127.0.0.1:3773" },
        tokenFile: "/home/tester/.config/t3-connector/tokens/a",
        allowedProjects: ["p1"],
      },
      {
        alias: "remote",
        environmentId: "env-b",
        transport: { kind: "ssh", host: "devbox.lan", remotePort: 3773 },
        tokenFile: "/abs/token",
        allowedProjects: ["p2", "p3"],
      },
    ]);
  });

  it("keeps an explicit default that names a configured alias", () => {
    const config = parse({
      default: "b",
      environments: { a: environment(), b: environment({ environmentId: "env-b" }) },
    });
    expect(config.default).toBe("b");
  });

  it("refuses a default that is not a configured alias", () => {
    const error = failure({ default: "zzz", environments: { a: environment() } });
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("default:");
    expect(error.message).toContain("zzz");
  });

  it("shows projects by folder when allowedProjectRoots names one, with or without allowedProjects", () => {
    const config = parse({
      environments: {
        both: environment({ allowedProjectRoots: ["~/work"] }),
        folders: environment({
          environmentId: "env-b",
          allowedProjects: undefined,
          allowedProjectRoots: ["/srv/p"],
        }),
      },
    });
    expect(config.environments[0]).toMatchObject({
      allowedProjects: ["p1"],
      allowedProjectRoots: ["/home/tester/work"],
    });
    expect(config.environments[1]).toMatchObject({ allowedProjects: [], allowedProjectRoots: ["/srv/p"] });
    expect(config.environments[0]).not.toHaveProperty("projectRoots");
  });

  it.each([
    [{ allowedProjects: undefined }, "environments.a.allowedProjects", "allowedProjectRoots"],
    [
      { allowedProjects: [], allowedProjectRoots: ["/srv/p"] },
      "environments.a.allowedProjects",
      "at least one",
    ],
    [{ allowedProjectRoots: [] }, "environments.a.allowedProjectRoots", "at least one folder"],
    [{ allowedProjectRoots: ["/"] }, "environments.a.allowedProjectRoots.0", "other than /"],
    [{ allowedProjectRoots: ["~"] }, "environments.a.allowedProjectRoots.0", "the home folder itself"],
    [{ allowedProjectRoots: ["/srv/../etc"] }, "environments.a.allowedProjectRoots.0", "normalised"],
    [
      { url: undefined, ssh: { host: "h" }, allowedProjectRoots: ["/srv/p"] },
      "environments.a.allowedProjectRoots",
      "ssh",
    ],
  ])("refuses an ACL that names nothing, or a folder it cannot walk (%#)", (overrides, path, words) => {
    const error = failure({ environments: { a: environment(overrides) } });
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(path);
    expect(error.message).toContain(words);
  });

  it("refuses an unknown key and names it with its path", () => {
    const top = failure({ environments: { a: environment() }, extra: 1 });
    expect(top.code).toBe("config_invalid");
    expect(top.message).toContain("extra: unknown key");
    const nested = failure({ environments: { a: environment({ label: "x" }) } });
    expect(nested.message).toContain("environments.a.label: unknown key");
    const ssh = failure({
      environments: { a: environment({ url: undefined, ssh: { host: "h", user: "root" } }) },
    });
    expect(ssh.message).toContain("environments.a.ssh.user: unknown key");
  });

  it.each([
    [{ padrao: "a", environments: { a: environment() } }, "padrao", "default"],
    [{ ambientes: { a: environment() } }, "ambientes", "environments"],
    [
      { environments: { a: { ...environment({ allowedProjects: undefined }), projetosPermitidos: ["p"] } } },
      "environments.a.projetosPermitidos",
      "allowedProjects",
    ],
    [
      { environments: { a: environment({ url: undefined, ssh: { host: "h", portaRemota: 1 } }) } },
      "environments.a.ssh.portaRemota",
      "remotePort",
    ],
  ])("stops start-up on the legacy key %#, naming its replacement", (raw, path, replacement) => {
    const error = failure(raw);
    expect(error.code).toBe("config_legacy_key");
    expect(error.message).toContain(`"${path}" is now "${replacement}"`);
  });

  it.each([
    ["an empty allowedProjects", environment({ allowedProjects: [] }), "environments.a.allowedProjects"],
    [
      "a missing allowedProjects",
      environment({ allowedProjects: undefined }),
      "environments.a.allowedProjects",
    ],
    [
      "a missing environmentId",
      environment({ environmentId: undefined }),
      "environments.a.environmentId: is required",
    ],
    ["a missing tokenFile", environment({ tokenFile: undefined }), "environments.a.tokenFile: is required"],
    ["a relative tokenFile", environment({ tokenFile: "tokens/a" }), "environments.a.tokenFile"],
    ["neither url nor ssh", environment({ url: undefined }), "needs one of url or ssh"],
    ["both url and ssh", environment({ ssh: { host: "h" } }), "exactly one of url or ssh"],
    [
      "a non-loopback http url",
      environment({ url: "http://10.0.0.5:3773" }),
      "environments.a.url: must be https",
    ],
    ["a plain-http lookalike host", environment({ url: "http://127.0.0.1.evil.com" }), "must be https"],
    ["a non-http scheme", environment({ url: "ftp://host" }), "environments.a.url"],
    ["a url with credentials", environment({ url: "https://u:p@host" }), "must not carry credentials"],
    ["an unparseable url", environment({ url: "not a url" }), "is not a valid URL"],
    [
      "an ssh host starting with -",
      environment({ url: undefined, ssh: { host: "-oProxyCommand=x" } }),
      "ssh.host",
    ],
    ["an ssh host with a space", environment({ url: undefined, ssh: { host: "a b" } }), "ssh.host"],
    ["an ssh user@host", environment({ url: undefined, ssh: { host: "root@box" } }), "ssh.host"],
    [
      "a non-integer remotePort",
      environment({ url: undefined, ssh: { host: "h", remotePort: 1.5 } }),
      "remotePort",
    ],
    ["an ssh without host", environment({ url: undefined, ssh: {} }), "environments.a.ssh.host: is required"],
  ])("refuses %s", (_name, env, expected) => {
    const error = failure({ environments: { a: env } });
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(expected);
  });

  it.each(["http://localhost:3773", "http://[::1]:3773", "http://127.0.0.2:3773", "https://10.0.0.5"])(
    "accepts %s",
    (url) => {
      expect(parse({ environments: { a: environment({ url }) } }).environments[0]?.transport).toEqual({
        kind: "url",
        url,
      });
    },
  );

  it("refuses aliases outside ^[a-z0-9-]+$", () => {
    const error = failure({ environments: { Local_1: environment() } });
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("environments.Local_1: alias must match");
  });

  it("refuses duplicate environmentIds", () => {
    const duplicate = failure({ environments: { a: environment(), b: environment() } });
    expect(duplicate.message).toContain('environments.b.environmentId: duplicates the environmentId of "a"');
  });

  it("accepts a config with no environment: the state the last `environments remove` leaves", () => {
    expect(parse({ environments: {} })).toEqual({ path: "/cfg/config.json", environments: [] });
  });
});

describe("loading the read config file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "t3c-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("uses T3_CONNECTOR_CONFIG, else ~/.config/t3-connector/config.json", () => {
    expect(readConfigPath({ homeDir: HOME, env: {} })).toBe("/home/tester/.config/t3-connector/config.json");
    expect(readConfigPath({ homeDir: HOME, env: { T3_CONNECTOR_CONFIG: "~/x.json" } })).toBe(
      "/home/tester/x.json",
    );
  });

  it("reports a missing file as config_not_found naming the path", async () => {
    const path = join(dir, "missing.json");
    await expect(loadReadConfig({ homeDir: dir, env: { T3_CONNECTOR_CONFIG: path } })).rejects.toMatchObject({
      code: "config_not_found",
      message: expect.stringContaining(path),
    });
  });

  it("reports bad JSON as config_invalid", async () => {
    const path = join(dir, "config.json");
    await writeFile(path, "{ nope");
    await expect(loadReadConfig({ path, homeDir: dir })).rejects.toMatchObject({ code: "config_invalid" });
  });

  it("loads and validates a file from disk", async () => {
    const path = join(dir, "config.json");
    await writeFile(path, JSON.stringify({ environments: { a: environment() } }));
    const config = await loadReadConfig({ path, homeDir: dir });
    expect(config.path).toBe(path);
    expect(config.environments[0]?.tokenFile).toBe(join(dir, ".config/t3-connector/tokens/a"));
  });
});
