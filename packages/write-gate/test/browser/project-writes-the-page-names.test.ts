/**
 * What the page says before the person approves a project write (ADR 0074), through a spawned
 * bridge, the real gate over the simulator and the page in headless Chromium: a request naming a
 * create shows its exact folder and that it would be made; a request naming a move shows its exact
 * folder and that it exists, on a 390 px screen; a request naming a forced delete shows
 * "delete project X and its N threads" with a fresh count. The lease approved admits exactly
 * those inputs: a hostile client that asked for one folder and writes another (or another flag,
 * or a forced delete it never named) is refused `scope_denied` with nothing sent, counted at the
 * simulator. A folder the send would refuse is refused at the request, before any page shows it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageWidth } from "@t3-connector/test-support/chromium";
import { postJson } from "@t3-connector/test-support/gate-http";
import { pageOrigin } from "@t3-connector/test-support/real-gate";
import {
  IDLE_THREAD,
  LEASED_PROJECT,
  OTHER_PROJECT,
  RUNNING_THREAD,
} from "@t3-connector/test-support/sim-world";
import { afterAll, describe, expect, it } from "vitest";
import { askOnPage, callTool, structured, textOf, useGateWithBridges } from "./support/gate-with-bridges.js";

const FOLDERS = realpathSync(mkdtempSync(join(tmpdir(), "t3c-project-page-")));
const ROOT = join(FOLDERS, "allowed");
mkdirSync(join(ROOT, "existing"), { recursive: true });
mkdirSync(join(ROOT, "moved-here"));
mkdirSync(join(ROOT, "not-named"));
mkdirSync(join(FOLDERS, "outside"));
symlinkSync(join(FOLDERS, "outside"), join(ROOT, "escape"));

const started = useGateWithBridges([{ name: "project-client" }], { projectRoots: [ROOT] });
const client = () => started().client(0);
afterAll(() => rmSync(FOLDERS, { recursive: true, force: true }));

const PHONE = { width: 390, height: 844 };

function liveProjects(): { id: string; workspaceRoot: string }[] {
  const listed = started().real.world.env("alpha").model.httpProjects();
  if (listed.kind !== "ok") throw new Error("no project list");
  return (
    listed.body as { projects: { id: string; workspaceRoot: string; deletedAt: string | null }[] }
  ).projects.filter((project) => project.deletedAt === null);
}

function projectIds(): string[] {
  return liveProjects().map((project) => project.id);
}

describe("the page names a project write, and the lease admits only that write", () => {
  it("a create shows its exact folder and that it would be made; another folder or flag is scope_denied", async () => {
    const { real, page } = started();
    const folder = join(ROOT, "new-work");
    const { answer } = await askOnPage(client(), page, "start the new work", {
      projectWrites: [
        {
          environment: "alpha",
          action: "project.create",
          workspaceRoot: folder,
          createWorkspaceRootIfMissing: true,
        },
      ],
    });
    expect(await page.locator("[data-testid=project-write-0]").textContent()).toBe(
      `In alpha: create a project at ${folder}; that folder does not exist and would be created`,
    );
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain(
      `create a project at ${folder}; that folder does not exist and would be created (alpha)`,
    );
    await page.click("[data-testid=approve]");
    const lease = structured(await answer);
    expect(lease).toMatchObject({ authorized: true });
    const leaseId = lease.leaseId as string;
    const create = (operationId: string, input: Record<string, unknown>) =>
      callTool(client(), "t3_escrever_project_create", { leaseId, environment: "alpha", operationId, input });

    const before = real.world.commandCount();
    for (const [operationId, input] of [
      ["other-folder", { title: "elsewhere", workspaceRoot: join(ROOT, "existing") }],
      ["other-flag", { title: "no flag", workspaceRoot: folder }],
      ["escape", { title: "out", workspaceRoot: join(ROOT, "escape"), createWorkspaceRootIfMissing: true }],
    ] as const) {
      const refused = await create(operationId, input);
      expect(refused.isError, operationId).toBe(true);
      expect(textOf(refused), operationId).toMatch(
        /^scope_denied: the lease was not approved for a project at /,
      );
    }
    expect(real.world.commandCount()).toBe(before);

    const done = await create("named", {
      title: "new work",
      workspaceRoot: folder,
      createWorkspaceRootIfMissing: true,
    });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(projectIds()).toContain((structured(done).receipt as { projectId: string }).projectId);
    expect(real.world.commandCount()).toBe(before + 1);
  }, 90_000);

  it("a move shows its exact folder on a 390 px screen; another folder, or one through a symlink out of the root, is scope_denied", async () => {
    const { real, page } = started();
    const wide = page.viewportSize();
    await page.setViewportSize(PHONE);
    try {
      const folder = join(ROOT, "moved-here");
      const { answer } = await askOnPage(client(), page, "move the outside project", {
        projectWrites: [
          {
            environment: "alpha",
            action: "project.meta.update",
            projectId: OTHER_PROJECT,
            workspaceRoot: folder,
          },
        ],
      });
      const words = `move project outside to ${folder}; that folder exists`;
      // On a phone the line by Approve says it, on the first screen, the whole folder within its width.
      const summary = page.locator("[data-testid=request-summary]");
      expect(await summary.textContent()).toContain(`${words} (alpha)`);
      expect(await summary.isVisible()).toBe(true);
      const box = await summary.boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
      const width = await pageWidth(page);
      expect(width.scrollWidth).toBeLessThanOrEqual(PHONE.width);
      expect(width.overflow).toBe(0);
      // The folded details name it too, once opened.
      await page.click("[data-testid=request-details] > summary");
      const line = page.locator("[data-testid=project-write-0]");
      await line.waitFor();
      expect(await line.textContent()).toBe(`In alpha: ${words}`);
      expect((await pageWidth(page)).overflow).toBe(0);
      await page.click("[data-testid=approve]");
      const lease = structured(await answer);
      expect(lease).toMatchObject({ authorized: true });
      const move = (operationId: string, workspaceRoot: string) =>
        callTool(client(), "t3_escrever_project_meta_update", {
          leaseId: lease.leaseId as string,
          environment: "alpha",
          operationId,
          input: { projectId: OTHER_PROJECT, workspaceRoot },
        });

      const before = real.world.commandCount();
      for (const [operationId, workspaceRoot] of [
        ["move-elsewhere", join(ROOT, "not-named")],
        ["move-escape", join(ROOT, "escape")],
      ] as const) {
        const refused = await move(operationId, workspaceRoot);
        expect(refused.isError, operationId).toBe(true);
        expect(textOf(refused), operationId).toMatch(
          /^scope_denied: the lease was not approved for a move of project /,
        );
      }
      expect(real.world.commandCount()).toBe(before);
      const done = await move("move-named", folder);
      expect(done.isError, textOf(done)).toBeFalsy();
      expect(liveProjects().find((project) => project.id === OTHER_PROJECT)?.workspaceRoot).toBe(folder);
      expect(real.world.commandCount()).toBe(before + 1);
    } finally {
      if (wide !== null) await page.setViewportSize(wide);
    }
  }, 90_000);

  it("a forced delete shows the project's name and its fresh thread count; a create it did not name is scope_denied", async () => {
    const { real, page } = started();
    const alpha = real.world.env("alpha");
    alpha.model.addThread({
      id: "archived-one",
      projectId: LEASED_PROJECT,
      state: "completed",
      archived: true,
    });
    const { answer } = await askOnPage(client(), page, "remove the old project", {
      projectWrites: [
        { environment: "alpha", action: "project.delete", projectId: LEASED_PROJECT, force: true },
      ],
    });
    // The idle and the running thread, and the archived one: counted by the gate, not said by the client.
    expect(await page.locator("[data-testid=project-write-0]").textContent()).toBe(
      "In alpha: delete project leased and its 3 threads",
    );
    await page.click("[data-testid=approve]");
    const lease = structured(await answer);
    expect(lease).toMatchObject({ authorized: true });
    const leaseId = lease.leaseId as string;

    const before = real.world.commandCount();
    // Same lease, same project, but a create it never named: refused before any read.
    const create = await callTool(client(), "t3_escrever_project_create", {
      leaseId,
      environment: "alpha",
      operationId: "unnamed-create",
      input: { title: "x", workspaceRoot: join(ROOT, "existing") },
    });
    expect(textOf(create)).toMatch(/^scope_denied: /);
    expect(real.world.commandCount()).toBe(before);
    const done = await callTool(client(), "t3_escrever_project_delete", {
      leaseId,
      environment: "alpha",
      operationId: "named-delete",
      input: { projectId: LEASED_PROJECT, force: true },
    });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(projectIds()).not.toContain(LEASED_PROJECT);
    expect(alpha.model.httpThread(IDLE_THREAD)).toMatchObject({ status: 404 });
    expect(alpha.model.httpThread(RUNNING_THREAD)).toMatchObject({ status: 404 });
  }, 90_000);

  it("refuses at the request a folder the send would refuse, so no page ever shows it", async () => {
    for (const [workspaceRoot, reason] of [
      [join(FOLDERS, "outside"), /not under any allowed project root/],
      [join(ROOT, "escape", "x"), /./],
      [`${ROOT}/../outside`, /absolute, normalised/],
      [join(ROOT, "missing"), /does not exist/],
    ] as const) {
      const refused = await callTool(client(), "t3_pedir_aprovacao", {
        purpose: "hostile folder",
        projectWrites: [{ environment: "alpha", action: "project.create", workspaceRoot }],
      });
      expect(refused.isError, workspaceRoot).toBe(true);
      expect(textOf(refused), workspaceRoot).toMatch(/^workspace_root_refused: /);
      expect(textOf(refused), workspaceRoot).toMatch(reason);
    }
    // A move is walked the same way: through a symlink out of the root, or to a missing folder.
    for (const [workspaceRoot, reason] of [
      [join(ROOT, "escape"), /symlink that leaves the allowed root/],
      [join(ROOT, "missing"), /moves only to an existing folder/],
    ] as const) {
      const refused = await callTool(client(), "t3_pedir_aprovacao", {
        purpose: "hostile move",
        projectWrites: [
          { environment: "beta", action: "project.meta.update", projectId: OTHER_PROJECT, workspaceRoot },
        ],
      });
      expect(textOf(refused), workspaceRoot).toMatch(/^workspace_root_refused: /);
      expect(textOf(refused), workspaceRoot).toMatch(reason);
    }
    // Nothing was kept for the page: its state lists no pending request.
    const { real } = started();
    const state = await postJson(real.gate.port, "/api/state", {}, { origin: pageOrigin(real.gate) });
    expect((state.body as { pendingRequests: unknown[] }).pendingRequests).toEqual([]);
  }, 60_000);
});
