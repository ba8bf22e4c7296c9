import { describe, expect, it } from "vitest";
import { parsePairingInput } from "../../src/t3/index.js";

describe("parsePairingInput", () => {
  it.each([
    ["a raw code", "ABCD2345EFGH", "ABCD2345EFGH"],
    ["a raw code with blanks around it", "  ABCD2345EFGH\n", "ABCD2345EFGH"],
    [
      "the JSON of `t3 auth pairing create`",
      '{"id":"p1","credential":"ABCD2345EFGH","scopes":[]}',
      "ABCD2345EFGH",
    ],
    [
      "JSON with a pairing URL",
      '{"pairUrl":"http://127.0.0.1:3773/pair#token=ABCD2345EFGH"}',
      "ABCD2345EFGH",
    ],
    [
      "a pairing URL with the token in its hash",
      "https://host.example/pair#token=ABCD2345EFGH",
      "ABCD2345EFGH",
    ],
    [
      "a pairing URL with the token in its query",
      "http://127.0.0.1:3773/pair?token=ABCD2345EFGH",
      "ABCD2345EFGH",
    ],
  ])("reads %s", (_name, input, expected) => {
    expect(parsePairingInput(input)).toBe(expected);
  });

  it.each([
    ["empty input", "   "],
    ["prose", "my pairing code is ABCD"],
    ["a URL without a token", "http://127.0.0.1:3773/pair"],
    ["JSON without a credential", '{"id":"p1"}'],
    ["broken JSON", '{"credential":'],
  ])("refuses %s as invalid_input", (_name, input) => {
    expect(() => parsePairingInput(input)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });
});
