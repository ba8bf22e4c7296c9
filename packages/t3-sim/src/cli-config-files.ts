import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

/** What the CLI knows about one started environment when it writes connector config files. */
export interface ConfigEnvironment {
  readonly alias: string;
  readonly environmentId: string;
  readonly url: string;
  readonly readToken: string;
  readonly operateToken: string;
  readonly projectIds: readonly string[];
}

/** The write gate's default port in the connector's examples. */
const WRITE_GATE_PORT = 7433;

/**
 * Writes the connector's read config (`config.json`), write config (`write.json`) and one token
 * file per token. Directories are 0700 and files 0600, as the connector requires of token files.
 */
export async function writeConfigFiles(
  dir: string,
  environments: readonly ConfigEnvironment[],
): Promise<void> {
  const root = resolve(dir);
  const tokens = join(root, "tokens");
  await mkdir(tokens, { recursive: true, mode: 0o700 });
  await chmod(root, 0o700);
  await chmod(tokens, 0o700);
  const read: Record<string, unknown> = {};
  const write: Record<string, unknown> = {};
  for (const env of environments) {
    const readFile = join(tokens, `${env.alias}.read.token`);
    const operateFile = join(tokens, `${env.alias}.operate.token`);
    await writePrivate(readFile, env.readToken);
    await writePrivate(operateFile, env.operateToken);
    read[env.alias] = {
      environmentId: env.environmentId,
      url: env.url,
      tokenFile: readFile,
      allowedProjects: [...env.projectIds],
    };
    write[env.alias] = { environmentId: env.environmentId, url: env.url, tokenFile: operateFile };
  }
  // No "default": reads have none (README, docs/cli.md), so a written config does not suggest one.
  const config = { environments: read };
  await writePrivate(join(root, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  const writeConfig = { port: WRITE_GATE_PORT, stateDir: join(root, "state"), environments: write };
  await writePrivate(join(root, "write.json"), `${JSON.stringify(writeConfig, null, 2)}\n`);
}

async function writePrivate(path: string, contents: string): Promise<void> {
  await writeFile(path, contents, { mode: 0o600 });
  // writeFile keeps the mode of an existing file; force it.
  await chmod(path, 0o600);
}
