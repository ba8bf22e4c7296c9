#!/usr/bin/env node
// Thin launcher: all logic lives in the compiled CLI module.
import { runCli } from "../dist/cli.js";

process.exitCode = await runCli(process.argv.slice(2));
