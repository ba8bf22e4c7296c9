// A simulator in its own process for the benchmarks. argv[2] is JSON
// `{environments: N, seed: "demo"|"empty", bulk?: {projects, threads}, diff?: {files, bytesPerFile}}`
// (diff: a thread `t-diff` in project `p-diff` whose completed run added that many files). Prints one
// JSON line `{"environments":[{alias, environmentId, url, readToken, projectIds}]}` when ready and stops
// when its stdin closes (the parent ended or asked it to).
import { describeSimulator, dist } from "./read-setup.mjs";

const options = JSON.parse(process.argv[2] ?? "{}");
const { startSimulator } = await dist("t3-sim", "index.js");
const { seedBulk } = await dist("t3-sim", "model/index.js");
// The simulator CLI's 26 aliases (alpha, beta, gamma, …), so a fleet bench can ask for all of them.
const { ALIASES: aliases } = await dist("t3-sim", "cli-args.js");
const count = Math.min(aliases.length, Math.max(1, options.environments ?? 1));
const sim = await startSimulator({
  environments: aliases.slice(0, count).map((alias) => ({ alias, seed: options.seed ?? "empty" })),
});
if (options.bulk) for (const env of sim.environments) seedBulk(env.model, options.bulk);
if (options.diff) {
  for (const env of sim.environments) {
    env.model.addProject({ id: "p-diff", title: "diff", workspaceRoot: "/home/sim/code/diff" });
    env.model.addThread({
      id: "t-diff",
      projectId: "p-diff",
      title: "A large diff",
      state: "completed",
      message: `[[sim:bulk=${options.diff.files}|${options.diff.bytesPerFile}]]`,
    });
  }
}
process.stdout.write(`${JSON.stringify({ environments: describeSimulator(sim) })}\n`);
process.stdin.resume();
process.stdin.on("end", async () => {
  await sim.close();
  process.exit(0);
});
