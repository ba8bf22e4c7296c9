import { describe, expect, it } from "vitest";
import { parseReadConfig } from "../../src/config/index.js";

const environments = {
  alpha: {
    environmentId: "env-alpha",
    url: "http://127.0.0.1:3773",
    tokenFile: "/tmp/alpha.token",
    allowedProjects: ["project-api"],
  },
};

describe("the read config's events section", () => {
  it("is optional, and read with its paths expanded from the home directory", () => {
    expect(parseReadConfig({ environments }, { path: "c.json" }).events).toBeUndefined();
    const config = parseReadConfig(
      {
        environments,
        events: { hookUrl: "https://h/t3", hookSecretFile: "~/hook-secret", types: ["run.failed"] },
      },
      { path: "c.json", homeDir: "/home/ana" },
    );
    expect(config.events).toEqual({
      hookUrl: "https://h/t3",
      hookSecretFile: "/home/ana/hook-secret",
      types: ["run.failed"],
    });
  });

  it("refuses an unknown field and a filter naming no configured environment, naming the path", () => {
    expect(() =>
      parseReadConfig(
        { environments, events: { hookUrl: "h", hookSecretFile: "/s", secret: "x" } },
        { path: "c.json" },
      ),
    ).toThrow(/events/);
    expect(() =>
      parseReadConfig(
        { environments, events: { hookUrl: "h", hookSecretFile: "/s", environments: ["beta"] } },
        { path: "c.json" },
      ),
    ).toThrow(/events\.environments\.0.*"beta" is not a configured environment/s);
  });
});
