/**
 * The proposal rules as pure functions over an inventory view (ADR 0017): cleaning the client's
 * words, the first ticks, and the refusal of names the inventory does not list.
 */
import { ACTION_IDS, type EnvironmentGrant, SCOPE_VERSION } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import { checkProposal, cleanText, type InventoryView, preselect } from "../../src/approval/index.js";

function grant(alias: string, projectIds: string[]): EnvironmentGrant {
  const projects = projectIds.map((id) => ({
    id,
    name: id,
    directory: `/srv/${id}`,
    workspaceRoots: [`/srv/${id}`],
  }));
  return {
    alias,
    environmentId: `env-${alias}`,
    label: alias,
    destination: `t3://env-${alias}`,
    projects,
    actions: [...ACTION_IDS].sort(),
    readProjectIds: projectIds,
  };
}

const inventory: InventoryView = {
  scope: {
    scopeVersion: SCOPE_VERSION,
    runtimeMode: "full-access",
    environments: [grant("alpha", ["p-a1", "p-a2"]), grant("beta", ["p-b1"])],
  },
  leftOut: [{ alias: "down", environmentId: "env-down", reason: "environment_unavailable" }],
  threads: [{ id: "t-1", projectId: "p-a2", title: "One", environmentId: "env-alpha" }],
};

describe("the client's words", () => {
  it("turns control characters and direction overrides into spaces, trims, and clips at 280 characters", () => {
    expect(cleanText(" a\u0000b\u202ec\n\td ")).toBe("a b c d");
    expect(cleanText("\u0007\u200f ")).toBeUndefined();
    // Invisible characters go: what the page shows is all there is.
    expect(cleanText("pin\u200bthe\u2060 release\ufeff\u00ad")).toBe("pinthe release");
    expect(cleanText("\u200b\u200d")).toBeUndefined();
    expect(cleanText("é".repeat(300))).toHaveLength(280);
  });
});

describe("the first ticks", () => {
  it("ticks the environment a client names with all its projects when none of the named projects is in it", () => {
    const ticks = preselect(
      { environments: ["beta"], projects: ["p-a1"], actions: ["thread.pin"] },
      inventory,
    );
    expect(ticks.environments).toEqual([
      { environmentId: "env-beta", projectIds: ["p-b1"], actions: ["thread.pin"] },
    ]);
  });

  it("ticks only the environments holding a proposed project or thread when no environment is named", () => {
    const ticks = preselect({ threads: ["t-1"] }, inventory);
    expect(ticks.environments.map((chosen) => [chosen.environmentId, chosen.projectIds])).toEqual([
      ["env-alpha", ["p-a2"]],
    ]);
    expect(ticks.environments[0]?.actions).not.toContain("thread.delete");
  });

  it("ticks nothing for an environment that is down, and nothing when no proposed action can run", () => {
    expect(preselect({ environments: ["down"] }, inventory)).toEqual({ environments: [] });
  });
});

describe("names the inventory does not list", () => {
  it("accepts known names, an environment that is down included", () => {
    expect(() =>
      checkProposal(
        {
          environments: ["alpha", "env-beta", "down"],
          projects: ["p-b1"],
          actions: ["thread.delete"],
          threads: ["t-1"],
        },
        inventory,
      ),
    ).not.toThrow();
  });

  it("names at most twenty valid projects in the message, all of them in the details", () => {
    const many: InventoryView = {
      ...inventory,
      scope: {
        ...inventory.scope,
        environments: [
          grant(
            "alpha",
            Array.from({ length: 25 }, (_, index) => `p-${String(index).padStart(2, "0")}`),
          ),
        ],
      },
    };
    let refusal: unknown;
    try {
      checkProposal({ projects: ["p-none"] }, many);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: "proposal_invalid",
      details: { unknown: { projects: ["p-none"] } },
    });
    expect((refusal as Error).message).toContain("p-19 and 5 more");
    expect((refusal as { details: { valid: { projects: string[] } } }).details.valid.projects).toHaveLength(
      25,
    );
  });
});
