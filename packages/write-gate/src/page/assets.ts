/**
 * @module The page's static files: every file in `assets/` (HTML, its scripts, style and icon —
 * files, so the CSP needs no inline script or style), the catalogue's action labels as
 * `/actions.json`, and the `@simplewebauthn/browser` UMD bundle from the installed package. Nothing comes from a CDN. Read once at start, so a missing
 * file fails the gate's start.
 */
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DECISION_PAGE_CSS } from "@t3-connector/core/passkeys";
import { ACTION_IDS, actionInfo } from "@t3-connector/write-engine/actions";

export interface PageAsset {
  readonly body: string;
  readonly contentType: string;
}

/** Served paths → assets. */
export type PageAssets = ReadonlyMap<string, PageAsset>;

/** Both `src/page/` and `dist/page/` sit two levels under the package root. */
const ASSET_DIR = fileURLToPath(new URL("../../src/page/assets/", import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** The browser bundle's file: the package exports only its entry, so find its root from there. */
export function simpleWebAuthnBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve("@simplewebauthn/browser");
  // `<root>/script/index.js` → `<root>/dist/bundle/index.umd.min.js`
  return join(dirname(dirname(entry)), "dist", "bundle", "index.umd.min.js");
}

export async function loadPageAssets(): Promise<PageAssets> {
  const names = (await readdir(ASSET_DIR)).filter((name) => CONTENT_TYPES[extname(name)] !== undefined);
  const files = await Promise.all(
    names.map(async (name) => ({ name, body: await readFile(join(ASSET_DIR, name), "utf8") })),
  );
  const assets = new Map<string, PageAsset>();
  for (const { name, body } of files) {
    const contentType = CONTENT_TYPES[extname(name)] ?? "application/octet-stream";
    assets.set(name === "index.html" ? "/" : `/${name}`, { body, contentType });
  }
  const icon = assets.get("/favicon.svg");
  // Browsers ask for /favicon.ico on their own; the same SVG answers, so nothing 404s.
  if (icon !== undefined) assets.set("/favicon.ico", icon);
  // The catalogue's labels, lines and risk groups, so the page names a lease's actions the same way
  // after a reload as on the request (one table: core's catalogue).
  assets.set("/actions.json", {
    body: JSON.stringify(ACTION_IDS.map((action) => actionInfo(action))),
    contentType: "application/json; charset=utf-8",
  });
  // Core's one stylesheet of the decision pages (ADR 0073); app.css refines it after.
  assets.set("/decide.css", { body: DECISION_PAGE_CSS, contentType: "text/css; charset=utf-8" });
  assets.set("/webauthn.js", {
    body: await readFile(simpleWebAuthnBundlePath(), "utf8"),
    contentType: "text/javascript; charset=utf-8",
  });
  return assets;
}
