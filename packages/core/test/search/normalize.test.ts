import { describe, expect, it } from "vitest";
import {
  matchesExactTitle,
  matchesSearch,
  normalizeSearchTerm,
  normalizeSearchText,
} from "../../src/search/index.js";

describe("search normalisation", () => {
  it("removes accents and case", () => {
    expect(normalizeSearchText("Revisão ÀÉÎÕÜ Çedilha")).toBe("revisao aeiou cedilha");
  });

  it("removes combining marks typed separately (already decomposed input)", () => {
    expect(normalizeSearchText("Cafe\u0301")).toBe("cafe");
  });

  it("treats a missing, empty or blank term as no search", () => {
    expect(normalizeSearchTerm(undefined)).toBeUndefined();
    expect(normalizeSearchTerm("")).toBeUndefined();
    expect(normalizeSearchTerm("   ")).toBeUndefined();
    expect(normalizeSearchTerm("  Ação ")).toBe("acao");
  });
});

describe("search matching", () => {
  const thread = { title: "Revisão do módulo de pagamentos", id: "thr_9F2a" };

  it("matches a substring of the title regardless of accents and case", () => {
    expect(matchesSearch("MODULO", thread)).toBe(true);
    expect(matchesSearch("revisao do", thread)).toBe(true);
    expect(matchesSearch("são", thread)).toBe(true);
  });

  it("matches a substring of the id", () => {
    expect(matchesSearch("9f2", thread)).toBe(true);
  });

  it("does not match what is in neither title nor id", () => {
    expect(matchesSearch("faturas", thread)).toBe(false);
  });

  it("matches everything for an empty term, including rows without a title", () => {
    expect(matchesSearch("", { id: "x", title: null })).toBe(true);
    expect(matchesSearch(undefined, thread)).toBe(true);
  });

  it("searches only the id of a row without a textual title", () => {
    expect(matchesSearch("abc", { id: "abc-1", title: null })).toBe(true);
    expect(matchesSearch("title", { id: "abc-1", title: null })).toBe(false);
  });

  it("compares whole normalised titles in exact mode", () => {
    expect(matchesExactTitle("revisao do MODULO de pagamentos", thread.title)).toBe(true);
    expect(matchesExactTitle("revisao do modulo", thread.title)).toBe(false);
    expect(matchesExactTitle("x", null)).toBe(false);
  });
});
