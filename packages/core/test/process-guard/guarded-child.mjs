// A long-running process in miniature, for process-guard.e2e.test.ts (an e2e test: it runs the
// built guard in a process of its own). It installs the guard, lets promises reject with nobody
// waiting (inside a call still waiting, inside a call that answered, outside any call, then a
// flood), and prints what it saw. Without the guard Node would end it at
// the first rejection.
import { installProcessGuard, runGuardedCall } from "../../dist/process-guard/index.js";

let now = 0;
const clock = { now: () => now, monotonic: () => now };
const lines = [];
const log = (line) => {
  lines.push(line);
  process.stderr.write(`${line}\n`);
};
const guard = installProcessGuard({ processName: "child-server", log, clock });
const caughtAtLeast = (count) =>
  new Promise((resolve) => {
    const check = () => (guard.caught >= count ? resolve() : setImmediate(check));
    check();
  });

// 1. A call whose detached work rejects while the call still waits: that call fails, alone.
const waiting = await runGuardedCall("tools/call stuck_tool", () => {
  void Promise.reject(new Error("detached failure"));
  return new Promise(() => {});
}).then(
  () => "answered",
  (error) => error.code,
);

// 2. A call that answered, then its leftover work rejects.
const answered = await runGuardedCall("tools/call quick_tool", async () => {
  setImmediate(() => void Promise.reject(new Error("late failure")));
  return "ok";
});
await caughtAtLeast(2);

// 3. Outside any call, then a flood of 30 more.
void Promise.reject(new Error("background failure"));
await caughtAtLeast(3);
for (let index = 0; index < 30; index++) void Promise.reject(new Error(`flood ${index}`));
await caughtAtLeast(33);
now += 61_000;
void Promise.reject(new Error("after the window"));
await caughtAtLeast(34);

guard.dispose();
process.stdout.write(JSON.stringify({ waiting, answered, caught: guard.caught, lines }));
