// Child process of the crash test: writes operations in a loop and prints each acknowledged step
// (`<state> <operationId>`) on stdout only after its journal call resolved. The parent kills it with
// SIGKILL at an arbitrary moment, mid-write, and checks that every printed step survived.
import { openJournal } from "../../../src/journal/index.js";

const [stateDir, prefix] = process.argv.slice(2);
if (stateDir === undefined || prefix === undefined)
  throw new Error("usage: journal-writer-child <stateDir> <prefix>");

// Small segments, so that sealing (segment write + active rewrite) is often the step that is killed.
const journal = await openJournal({ stateDir, segmentRecords: 7, recentRecords: 3 });
const acknowledge = (line: string) =>
  new Promise<void>((done) => {
    process.stdout.write(`${line}\n`, () => done());
  });
await acknowledge("ready");

const identity = { environmentId: "env-a", destination: "t3://env-a", caller: "channel:crash" };
for (let i = 0; ; i += 1) {
  const operationId = `${prefix}-${i}`;
  const reserved = await journal.reserve({ ...identity, operationId, action: "thread.send", input: { i } });
  await acknowledge(`preparing ${operationId}`);
  const key = reserved.record.key;
  if (i % 5 === 4) {
    await journal.refuse(key, { code: "scope_denied", message: "not in the lease" });
    await acknowledge(`refused ${operationId}`);
    continue;
  }
  await journal.markUncertain(key, { commandId: `cmd-${i}` });
  await acknowledge(`uncertain ${operationId}`);
  if (i % 7 === 6) continue; // left uncertain, as after a lost socket
  await journal.complete(key, { sequence: i });
  await acknowledge(`completed ${operationId}`);
}
