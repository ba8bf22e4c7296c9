#!/usr/bin/env node
import("../dist/cli.js").then(async (cli) => process.exit(await cli.main(process.argv.slice(2))));
