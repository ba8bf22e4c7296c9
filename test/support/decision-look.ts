/**
 * The look every page a person decides on keeps (ADR 0073), measured in the page: each visible
 * button, input and select at least 44 px tall with a font of at least 16 px, nothing wider than
 * the viewport, and under a dark colour scheme a dark page background. Answers what breaks, so a
 * failing test names the control.
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { screenshot } from "./chromium.js";

// These run in the page; the tests are type-checked without the DOM library, so the page's globals
// are read through small structural types (as chromium.ts does).
interface Box {
  width: number;
  height: number;
}
interface Control {
  tagName: string;
  id: string;
  type?: string;
  dataset: { testid?: string };
  getBoundingClientRect(): Box;
}
interface Style {
  fontSize: string;
  visibility: string;
  display: string;
  backgroundColor: string;
}
interface PageGlobals {
  document: {
    body: unknown;
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): Iterable<Control>;
  };
  innerWidth: number;
  getComputedStyle(node: unknown): Style;
}

export interface LookReport {
  /** `tag#id[data-testid]: height×font` of each control under the minimums. */
  readonly small: string[];
  /** How far the page scrolls sideways (0 when it does not). */
  readonly overflow: number;
  /** The visible controls measured (a page that shows none proves nothing). */
  readonly controls: number;
}

export const MIN_TAP_PX = 44;
export const MIN_FONT_PX = 16;

export function measureLook(page: Page): Promise<LookReport> {
  return page.evaluate(
    ({ minTap, minFont }) => {
      const win = globalThis as unknown as PageGlobals;
      const doc = win.document;
      const small: string[] = [];
      let controls = 0;
      for (const node of doc.querySelectorAll("button, input, select")) {
        const box = node.getBoundingClientRect();
        const style = win.getComputedStyle(node);
        if (box.width === 0 || box.height === 0 || style.visibility === "hidden" || style.display === "none")
          continue;
        if (node.type === "hidden") continue;
        controls += 1;
        const font = Number.parseFloat(style.fontSize);
        if (box.height < minTap - 0.5 || font < minFont) {
          small.push(
            `${node.tagName.toLowerCase()}#${node.id}[${node.dataset.testid ?? ""}]: ${box.height}x${font}`,
          );
        }
      }
      const overflow = Math.max(0, doc.documentElement.scrollWidth - win.innerWidth);
      return { small, overflow, controls };
    },
    { minTap: MIN_TAP_PX, minFont: MIN_FONT_PX },
  );
}

/** The relative luminance (0 black … 1 white) of the page's background under its current scheme. */
export function backgroundLuminance(page: Page): Promise<number> {
  return page.evaluate(() => {
    const win = globalThis as unknown as PageGlobals;
    const doc = win.document;
    const colour = (node: unknown) => win.getComputedStyle(node).backgroundColor;
    let value = colour(doc.body);
    if (/rgba\(0, 0, 0, 0\)|transparent/.test(value)) value = colour(doc.documentElement);
    const [r, g, b] = (value.match(/\d+(\.\d+)?/g) ?? ["255", "255", "255"]).slice(0, 3).map(Number);
    const channel = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r ?? 255) + 0.7152 * channel(g ?? 255) + 0.0722 * channel(b ?? 255);
  });
}

/**
 * Fails unless the page keeps the look (some controls shown, none small, no sideways scroll) and
 * is dark under a dark scheme; keeps a screenshot of each scheme named `<name>-light|dark`.
 */
export async function expectDecisionLook(page: Page, name: string): Promise<void> {
  const look = await measureLook(page);
  expect(look.controls).toBeGreaterThan(0);
  expect(look.small).toEqual([]);
  expect(look.overflow).toBe(0);
  await screenshot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await backgroundLuminance(page)).toBeLessThan(0.05);
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
}
