import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAcceptedCommandTypes } from "../../src/t3/decode-defect.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const capture = JSON.parse(
  readFileSync(
    path.resolve(repoRoot, "../shared/reference/t3-fixtures/33b-ws-dispatch-unknown-command-type.json"),
    "utf8",
  ),
) as {
  response: { ws_frames_received: { frame: { _tag: string; exit?: { cause: { defect: string }[] } } }[] };
};

describe("parseAcceptedCommandTypes on the real 0.0.31 answer", () => {
  it("reads all 37 types, including members that show a literal field before the ellipsis", () => {
    const exit = capture.response.ws_frames_received.find((received) => received.frame._tag === "Exit");
    const defect = exit?.frame.exit?.cause[0]?.defect ?? "";
    expect(defect).toContain('readonly "reason": "user"');
    const types = parseAcceptedCommandTypes(defect);
    expect(types).toHaveLength(37);
    expect(types).toContain("thread.unsettle");
    expect(types).toContain("provider.switch");
    expect(types).not.toContain("thread.pin.reorder");
  });
});
