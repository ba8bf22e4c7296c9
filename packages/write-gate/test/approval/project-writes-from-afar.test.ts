/**
 * The page from afar shows no machine paths (ADR 0050), so it cannot grant a project write the
 * gate's own page names (ADR 0074): over real sockets, a request naming a create is refused its
 * approval challenge there, and its view gives the count of such writes, never the folder. A
 * request naming none goes on to the passkey step as before.
 */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@t3-connector/test-support/free-port";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let real: RealGate;
let folders: string;
let origin: string;

beforeAll(async () => {
  folders = await realpath(await mkdtemp(join(tmpdir(), "t3c-afar-projects-")));
  await mkdir(join(folders, "oauth"), { mode: 0o700 });
  origin = `http://localhost:${await freePort()}`;
  real = await startRealGate({
    remoteApproval: { origin, oauthStateDir: join(folders, "oauth") },
    projectRoots: [folders],
  });
});

afterAll(async () => {
  await real?.close();
  await rm(folders, { recursive: true, force: true });
});

async function ask(body: Record<string, unknown>): Promise<string> {
  const answer = await real.relay({ op: "request_approval", purpose: "from afar", ...body });
  const requestId = (answer.body as { requestId?: string }).requestId;
  if (requestId === undefined) throw new Error(JSON.stringify(answer.body));
  return requestId;
}

const afar = (path: string, body: unknown) => postJson(real.gate.port, path, body, { origin });

describe("project writes and the page from afar", () => {
  it("refuses to approve a request that names a project folder, and its view never shows the folder", async () => {
    const folder = join(folders, "new-work");
    const requestId = await ask({
      projectWrites: [
        {
          environment: "alpha",
          action: "project.create",
          workspaceRoot: folder,
          createWorkspaceRootIfMissing: true,
        },
      ],
    });
    const view = await afar("/approve/api/view", { requestId });
    expect(view.status).toBe(200);
    expect((view.body as { request: Record<string, unknown> }).request.projectWriteCount).toBe(1);
    expect(JSON.stringify(view.body)).not.toContain(folder);
    const refused = await afar("/approve/api/options", { requestId, decision: "approve" });
    expect(refused.body).toMatchObject({ error: "selection_invalid" });
    expect(refused.status).toBe(400);
  });

  it("lets a request naming no project write go on to the passkey step", async () => {
    const requestId = await ask({ actions: ["thread.pin"] });
    const answer = await afar("/approve/api/options", { requestId, decision: "approve" });
    // No passkey is enrolled from afar here: the next step's own refusal, not the project one.
    expect(answer.body).toMatchObject({ error: "enrollment_required" });
  });
});
