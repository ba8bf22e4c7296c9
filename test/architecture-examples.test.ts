import { readFileSync } from "node:fs";
import path from "node:path";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import {
  defineEnvironmentsCommandLine,
  type EnvironmentsCliCommand,
  parseCommandLine,
} from "@t3-connector/core/cli-support";
import { checkHostOrigin, parseJsonBytes, readBoundedBody } from "@t3-connector/core/http-edge";
import { REPO_ROOT, repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The examples of ARCHITECTURE.md's "Where to add…", as code the test suite compiles and runs, and
// a check that every path that section names exists, so the map cannot point at a file that moved.

// Example: an error. A code from its domain's table, and a message that names the fix.
function requireAlias(alias: string | undefined): string {
  if (alias === undefined) {
    throw new ConnectorError(
      "invalid_input",
      "environments add needs an alias, e.g. environments add laptop",
    );
  }
  return alias;
}

// Example: an HTTP body. Host and Origin checked first, then the body read under its cap by the
// one bounded reader, then parsed; each refusal in the surface's own words.
const NAMES = { hosts: new Set(["127.0.0.1:7433"]), origins: new Set(["http://127.0.0.1:7433"]) };
async function readJsonRequest(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number }> {
  if (!checkHostOrigin(request.headers, NAMES).ok) return { ok: false, status: 403 };
  const body = await readBoundedBody(request, { maxBytes: 32 * 1024 });
  if (body.kind === "too_large") return { ok: false, status: 413 };
  if (body.kind !== "ok") return { ok: false, status: 400 };
  const parsed = parseJsonBytes(body.bytes);
  return parsed.kind === "json" ? { ok: true, value: parsed.value } : { ok: false, status: 400 };
}

// Example: an environments flag. The three CLIs declare these words through one function; a new
// flag goes in core/src/cli-support/environments-command-line.ts and reaches all three.
function parseEnvironmentsWords(argv: readonly string[]) {
  return parseCommandLine<EnvironmentsCliCommand>(
    argv,
    (program, found, warn) => defineEnvironmentsCommandLine(program, found, { owner: "write", warn }),
    { name: "t3-connector-write" },
  );
}

describe("ARCHITECTURE.md's examples", () => {
  it("an error carries its code and the fix", () => {
    expect(() => requireAlias(undefined)).toThrow(/e\.g\. environments add laptop/);
    try {
      requireAlias(undefined);
    } catch (error) {
      expect(isConnectorError(error, "invalid_input")).toBe(true);
    }
  });

  it("an HTTP body is checked, read under its cap and parsed", async () => {
    const post = (body: string, host = "127.0.0.1:7433") =>
      new Request("http://127.0.0.1:7433/api", { method: "POST", body, headers: { host } });
    expect(await readJsonRequest(post('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(await readJsonRequest(post("x".repeat(40 * 1024)))).toEqual({ ok: false, status: 413 });
    expect(await readJsonRequest(post("{}", "evil.example"))).toEqual({ ok: false, status: 403 });
  });

  it("an environments flag is parsed the same way by every CLI", () => {
    expect(parseEnvironmentsWords(["diagnose", "--environment", "box"])).toMatchObject({
      kind: "parsed",
      value: { kind: "diagnose", environment: "box" },
    });
  });

  it('names only paths that exist in "Where to add…"', () => {
    const markdown = readFileSync(path.join(REPO_ROOT, "ARCHITECTURE.md"), "utf8");
    const section = markdown.split("## Where to add…")[1]?.split("\n## ")[0] ?? "";
    const files = repoFiles();
    const named = [...section.matchAll(/`([a-z0-9-]+(?:\/[A-Za-z0-9_.-]+)+)`/g)].map(
      (match) => match[1] as string,
    );
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter(
      (name) =>
        !files.some(
          (file) =>
            file === name ||
            file.startsWith(`${name.replace(/\/$/, "")}/`) ||
            file.endsWith(`/${name}`) ||
            file.includes(`/${name.replace(/\/$/, "")}/`),
        ),
    );
    expect(missing, "a path named in ARCHITECTURE.md's Where to add… that no file has").toEqual([]);
    expect(section).toContain("test/architecture-examples.test.ts");
    // Each example the section names by its quoted title is here, under that title.
    const titles = [...section.matchAll(/Example: "([^"]+)"/g)].map((match) => match[1] as string);
    expect(titles).toEqual(["an error", "an HTTP body", "an environments flag"]);
    const examples = readFileSync(path.join(REPO_ROOT, "test/architecture-examples.test.ts"), "utf8");
    for (const title of titles) expect(examples).toContain(`// Example: ${title}.`);
  });
});
