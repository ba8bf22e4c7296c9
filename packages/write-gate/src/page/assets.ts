/**
 * @module The page's static files: the HTML, its script and style (files, so the CSP needs no
 * inline script), and the `@simplewebauthn/browser` UMD bundle from the installed package.
 * Nothing comes from a CDN. Read once at start, so a missing file fails the gate's start.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface PageAsset {
  readonly body: string;
  readonly contentType: string;
}

/** Served paths → assets. */
export type PageAssets = ReadonlyMap<string, PageAsset>;

/** Both `src/page/` and `dist/page/` sit two levels under the package root. */
const ASSET_DIR = fileURLToPath(new URL("../../src/page/assets/", import.meta.url));

/** The browser bundle's file: the package exports only its entry, so find its root from there. */
export function simpleWebAuthnBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve("@simplewebauthn/browser");
  // `<root>/script/index.js` → `<root>/dist/bundle/index.umd.min.js`
  return join(dirname(dirname(entry)), "dist", "bundle", "index.umd.min.js");
}

export async function loadPageAssets(): Promise<PageAssets> {
  const [html, script, style, bundle] = await Promise.all([
    readFile(join(ASSET_DIR, "index.html"), "utf8"),
    readFile(join(ASSET_DIR, "app.js"), "utf8"),
    readFile(join(ASSET_DIR, "app.css"), "utf8"),
    readFile(simpleWebAuthnBundlePath(), "utf8"),
  ]);
  return new Map<string, PageAsset>([
    ["/", { body: html, contentType: "text/html; charset=utf-8" }],
    ["/app.js", { body: script, contentType: "text/javascript; charset=utf-8" }],
    ["/app.css", { body: style, contentType: "text/css; charset=utf-8" }],
    ["/webauthn.js", { body: bundle, contentType: "text/javascript; charset=utf-8" }],
  ]);
}
