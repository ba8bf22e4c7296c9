import { describe, expect, it } from "vitest";
import { diagnosisError } from "../../src/cli-support/index.js";
import { ConnectorError } from "../../src/errors.js";

describe("diagnosisError", () => {
  it.each([
    ["unavailable", "t3-connector-write environments move laptop --url URL"],
    ["connection_lost", "t3-connector-write environments move laptop --url URL"],
    ["timeout", "t3-connector-write environments move laptop --url URL"],
    ["unauthorized", "t3-connector-write pair --environment laptop"],
    ["environment_mismatch", "t3-connector-write environments remove laptop, then environments add"],
  ] as const)("names the command that fixes %s", (code, command) => {
    const reported = diagnosisError(
      new ConnectorError(code, "what happened"),
      "t3-connector-write",
      "laptop",
    );
    expect(reported).toEqual({ code, message: "what happened", next: expect.stringContaining(command) });
  });

  it("adds no next step where no command is the usual fix, and hides a non-connector error's text", () => {
    expect(
      diagnosisError(new ConnectorError("scope_mismatch", "scopes differ"), "t3-connector", "a"),
    ).toEqual({
      code: "scope_mismatch",
      message: "scopes differ",
    });
    expect(diagnosisError(new Error("secret detail"), "t3-connector", "a")).toEqual({
      code: "internal",
      message: "unexpected failure",
    });
  });
});
