// Child process of the lock tests: opens the journal, says so, and keeps it open until killed.
import { openJournal } from "../../../src/journal/index.js";

const [stateDir] = process.argv.slice(2);
if (stateDir === undefined) throw new Error("usage: hold-lock-child <stateDir>");
await openJournal({ stateDir });
process.stdout.write("ready\n");
setInterval(() => undefined, 60_000);
