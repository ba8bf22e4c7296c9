/**
 * A launch on a T3 whose `GET /api/projects` answers its web page (200 text/html), as 0.0.46 may
 * (its route list does not name it, ADR 0069): behind a real proxy that answers that route so, the
 * launch's project check reads the shell's projects instead, and the launch lands exactly once.
 * The absence is remembered: the second launch does not ask the route again.
 */
import { type WebPageProxy, webPageProxy } from "@t3-connector/test-support/web-page-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS } from "../../src/actions/index.js";
import { type Harness, LEASE_ID, leaseScope, startHarness } from "./support/harness.js";

let harness: Harness;
const proxies: WebPageProxy[] = [];
beforeAll(async () => {
  harness = await startHarness({
    aliases: ["nopage"],
    reachedThrough: async (env) => {
      const proxy = await webPageProxy(env.url, ["/api/projects"]);
      proxies.push(proxy);
      return proxy.url;
    },
  });
});
afterAll(async () => {
  await harness.close();
  await Promise.all(proxies.map((proxy) => proxy.close()));
});

const launch = (operationId: string, projectId: string) =>
  harness.dispatcher.dispatch({
    leaseId: LEASE_ID,
    environment: "nopage",
    operationId,
    action: "thread.launch",
    input: {
      projectId,
      title: `launch ${operationId}`,
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
      workspaceStrategy: { type: "root" },
    },
  });

describe("a launch where GET /api/projects answers the web page", () => {
  it("checks the project against the shell and launches once; the route is asked once", async () => {
    const first = await launch("op-launch-1", SAMPLE_IDS.projectId);
    expect(first.state).toBe("completed");
    const second = await launch("op-launch-2", SAMPLE_IDS.projectId);
    expect(second.state).toBe("completed");
    expect(harness.writeFrames.filter((frame) => frame.tag === "orchestration.launchThread")).toHaveLength(2);
    expect(proxies[0]?.answeredWithPage).toEqual(["GET /api/projects"]);
  });

  it("still refuses a leased project the shell does not list, sending nothing", async () => {
    const ghost = "9a1f2b3c-0000-4000-8000-0000000000ff";
    const scope = harness.lease.scope;
    harness.lease.scope = leaseScope([
      {
        alias: "nopage",
        environmentId: harness.env("nopage").environmentId,
        projects: [
          { id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot },
          { id: ghost, directory: "/srv/projects/ghost" },
        ],
      },
    ]);
    try {
      const framesBefore = harness.writeFrames.length;
      const refused = await launch("op-launch-ghost", ghost).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ details: { reason: "project_not_found", sent: false } });
      expect(harness.writeFrames.length).toBe(framesBefore);
    } finally {
      harness.lease.scope = scope;
    }
  });
});
