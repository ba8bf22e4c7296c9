// Module hooks: `.js` imports that only exist as `.ts` sources resolve to the `.ts` file, `@t3-connector/core`
// (and its subpaths) resolves to core's sources, and `.ts` files are transpiled (types erased) with
// the workspace's TypeScript.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const CORE_SPECIFIER = /^@t3-connector\/core(?:\/([a-z0-9-]+))?$/;
const coreSources = new URL("../../../../core/src/", import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const core = CORE_SPECIFIER.exec(specifier);
  if (core) {
    const entry = core[1] ? `${core[1]}/index.ts` : "index.ts";
    return { url: new URL(entry, coreSources).href, shortCircuit: true };
  }
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (!relative || !specifier.endsWith(".js") || !context.parentURL?.endsWith(".ts")) throw error;
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const source = await readFile(fileURLToPath(url), "utf8");
  const output = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  return { format: "module", source: output.outputText, shortCircuit: true };
}
