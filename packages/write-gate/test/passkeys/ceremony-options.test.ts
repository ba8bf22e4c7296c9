import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnrollmentCode, generateEnrollmentCode } from "@t3-connector/core/passkeys";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Enrollment, OneTimeBook, Passkeys, saveCredentials } from "../../src/passkeys/index.js";
import { ManualClock } from "../security/support/gate.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "t3c-ceremony-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ceremony options", () => {
  it("asks for a resident key, required user verification, no attestation, rpID localhost", async () => {
    const path = join(dir, "credentials.json");
    await saveCredentials(path, [
      {
        id: "existing",
        publicKey: "AA",
        counter: 3,
        transports: ["internal"],
        createdAt: "2026-12-02T12:00:00.000Z",
      },
    ]);
    const passkeys = await Passkeys.open({ path, port: 7433, clock: new ManualClock() });
    expect(passkeys.origin).toBe("http://localhost:7433");
    const registration = await passkeys.registrationOptions();
    expect(registration.rp.id).toBe("localhost");
    expect(registration.attestation).toBe("none");
    expect(registration.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    expect(registration.excludeCredentials?.map((credential) => credential.id)).toEqual(["existing"]);
    const challenge = new Uint8Array(32).fill(7);
    const authentication = await passkeys.authenticationOptions(challenge);
    expect(authentication.rpId).toBe("localhost");
    expect(authentication.userVerification).toBe("required");
    expect(authentication.challenge).toBe(Buffer.from(challenge).toString("base64url"));
    expect(authentication.allowCredentials).toEqual([
      { id: "existing", type: "public-key", transports: ["internal"] },
    ]);
  });
});

describe("enrollment code", () => {
  it("is long, matches only itself, and serves once", () => {
    const code = generateEnrollmentCode();
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const once = new EnrollmentCode(code);
    expect(once.matches("WRONG-CODE")).toBe(false);
    expect(once.matches(code.toLowerCase())).toBe(true);
    expect(once.consume(code)).toBe(true);
    expect(once.consume(code)).toBe(false);
    expect(once.matches(code)).toBe(false);
  });

  it("opens the first registration only with the code and the next ones only with a step-up", async () => {
    const clock = new ManualClock();
    const passkeys = await Passkeys.open({ path: join(dir, "credentials.json"), port: 7433, clock });
    const enrollment = new Enrollment({ passkeys, code: new EnrollmentCode("AAAA-BBBB-CCCC-DDDD"), clock });
    await expect(enrollment.begin({})).rejects.toMatchObject({ code: "enrollment_code_required" });
    await expect(enrollment.begin({ code: "AAAA-BBBB-CCCC-DDDE" })).rejects.toMatchObject({
      code: "enrollment_code_invalid",
    });
    const begun = await enrollment.begin({ code: "AAAA-BBBB-CCCC-DDDD" });
    expect(begun.registrationId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A registration lives 120 s.
    clock.advance(120_000);
    await expect(enrollment.finish(begun.registrationId, {} as never)).rejects.toMatchObject({
      code: "registration_unknown",
    });
    await expect(enrollment.stepUpOptions("enroll")).rejects.toMatchObject({ code: "step_up_invalid" });
  });
});

describe("OneTimeBook", () => {
  it("serves an entry once, forgets it after its lifetime, and refuses past its cap", () => {
    const clock = new ManualClock();
    const book = new OneTimeBook<string>({ clock, ttlMs: 1000, max: 2 });
    const a = book.add("a");
    const b = book.add("b");
    expect(book.add("c")).toBeNull();
    expect(book.take(a ?? "")).toBe("a");
    expect(book.take(a ?? "")).toBeUndefined();
    clock.advance(1000);
    expect(book.take(b ?? "")).toBeUndefined();
    expect(book.add("d")).not.toBeNull();
  });
});
