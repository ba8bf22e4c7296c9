import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeTokenFile } from "@t3-connector/core/config";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { bearerGuard, loadBearerToken } from "../../src/http/bearer-auth.js";

// The static bearer of `serve --http --auth-token-file` is Hono's bearer check (ADR 0056) with one
// answer for every refusal, and a token file that could never be presented is refused at start.
const token = "a".repeat(40);
const app = new Hono();
app.use("/mcp", bearerGuard(token));
app.post("/mcp", (c) => c.json({ served: true }));
app.onError((_error, c) => c.json({ error: "internal" }, 500));

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("the static bearer", () => {
  it("serves the right token, with any number of spaces after the scheme and in any case", async () => {
    for (const authorization of [`Bearer ${token}`, `bearer   ${token}`]) {
      const answer = await app.request("/mcp", { method: "POST", headers: { authorization } });
      expect(answer.status).toBe(200);
    }
  });

  it.each([
    ["no header", undefined],
    ["another scheme", `Basic ${token}`],
    ["the token without a scheme", token],
    ["a malformed token", `Bearer ${token}!`],
    ["a wrong token", `Bearer ${"b".repeat(40)}`],
    ["the token with a byte more", `Bearer ${token}a`],
    ["an empty bearer", "Bearer "],
  ])("answers %s with the one 401, never 400 or 500", async (_what, authorization) => {
    const answer = await app.request("/mcp", {
      method: "POST",
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="t3-connector"');
    expect(await answer.json()).toEqual({ error: "unauthorized" });
  });

  it("refuses at start a token file whose token a bearer header cannot carry", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-bearer-"));
    dirs.push(dir);
    const file = path.join(dir, "http", "bearer.token");
    await writeTokenFile(file, `${"x".repeat(40)}#!`);
    await expect(loadBearerToken(file)).rejects.toMatchObject({ code: "token_file_invalid" });
    await writeTokenFile(file, "0123456789abcdef".repeat(4));
    await expect(loadBearerToken(file)).resolves.toBe("0123456789abcdef".repeat(4));
  });
});
