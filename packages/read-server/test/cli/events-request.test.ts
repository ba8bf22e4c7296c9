import type { ReadConfig } from "@t3-connector/core/config";
import { describe, expect, it } from "vitest";
import { resolveEventsRequest } from "../../src/cli/events-request.js";

const base: ReadConfig = { path: "/tmp/config.json", default: "alpha", environments: [] };
const withSection: ReadConfig = {
  ...base,
  events: {
    hookUrl: "https://hooks.example/t3",
    hookSecretFile: "/etc/t3/secret",
    stateDir: "/var/lib/t3-events",
    environments: ["alpha"],
    types: ["run.completed", "run.failed"],
    maxAttempts: 5,
    maxAgeHours: 2,
    graceSeconds: 30,
  },
};

describe("the events settings from flags and the config's events section", () => {
  it("takes every field from the section when no flag is given", () => {
    expect(resolveEventsRequest({ filters: {} }, withSection)).toEqual({
      hookUrl: "https://hooks.example/t3",
      hookSecretFile: "/etc/t3/secret",
      stateDir: "/var/lib/t3-events",
      filters: { environments: ["alpha"], types: ["run.completed", "run.failed"] },
      maxAttempts: 5,
      maxAgeMs: 7_200_000,
      graceMs: 30_000,
    });
  });

  it("lets --grace-seconds 0 override the section's grace period", () => {
    expect(resolveEventsRequest({ filters: {}, graceMs: 0 }, withSection)).toMatchObject({ graceMs: 0 });
  });

  it("lets each flag override its own field and keeps the others", () => {
    const resolved = resolveEventsRequest(
      { hookUrl: "http://127.0.0.1:9/hook", filters: { types: ["thread.needs_input"] }, maxAttempts: 2 },
      withSection,
    );
    expect(resolved).toMatchObject({
      hookUrl: "http://127.0.0.1:9/hook",
      hookSecretFile: "/etc/t3/secret",
      filters: { environments: ["alpha"], types: ["thread.needs_input"] },
      maxAttempts: 2,
      maxAgeMs: 7_200_000,
    });
  });

  it("names the flag and the config field when the hook URL or secret is missing", () => {
    expect(() => resolveEventsRequest({ filters: {} }, base)).toThrow(
      /--hook-url, or an "events" section with hookUrl in \/tmp\/config\.json/,
    );
    expect(() => resolveEventsRequest({ hookUrl: "http://h", filters: {} }, base)).toThrow(
      /--hook-secret-file/,
    );
  });

  it("refuses an unknown event type in the section, listing the known ones", () => {
    const bad: ReadConfig = {
      ...base,
      events: { hookUrl: "http://h", hookSecretFile: "/s", types: ["run.done"] },
    };
    expect(() => resolveEventsRequest({ filters: {} }, bad)).toThrow(
      /events\.types takes run\.completed.*not run\.done/,
    );
  });
});
