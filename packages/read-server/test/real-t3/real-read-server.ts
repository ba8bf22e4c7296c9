/**
 * A read server over a real T3 for the real tests: the server's environmentId read from its
 * descriptor, the read token in a private token file under `dir`, a read config whose one
 * environment `real` has `acl` (its allowedProjects or allowedProjectRoots), and an SDK client
 * joined to the server by the in-memory transport.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { parseReadConfig, writeTokenFile } from "@t3-connector/core/config";
import { createProcessReadContext, type ReadContext } from "../../src/read-context.js";
import { createReadServer } from "../../src/server.js";
import { readToolDefinitions } from "../../src/tools/index.js";

export async function startRealReadServer(options: {
  url: string;
  readToken: string;
  dir: string;
  acl: Record<string, unknown>;
  clientName: string;
}): Promise<{ context: ReadContext; client: Client }> {
  const environmentId = (
    (await (await fetch(`${options.url}/.well-known/t3/environment`)).json()) as { environmentId: string }
  ).environmentId;
  const tokenFile = path.join(options.dir, "tokens", "real.token");
  await writeTokenFile(tokenFile, options.readToken);
  const readConfig = parseReadConfig(
    { environments: { real: { environmentId, url: options.url, tokenFile, ...options.acl } } },
    { path: path.join(options.dir, "config.json") },
  );
  const context = createProcessReadContext({ config: readConfig, log: () => undefined });
  const server = createReadServer(readToolDefinitions, context);
  const client = new Client({ name: options.clientName, version: "0.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { context, client };
}
