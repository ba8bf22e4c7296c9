// A tiny runner for child processes of the journal tests: `node --import ./ts-loader.mjs child.ts`
// runs TypeScript sources directly (Node 20 cannot), so a crash test never depends on a stale build.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
