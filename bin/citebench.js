#!/usr/bin/env node
// Installed entry point: registers tsx so the TypeScript sources run as they are, then starts the CLI.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
