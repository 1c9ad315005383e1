import { readFileSync } from 'node:fs';

/** The agent's version, from its package.json (`--version`, `podconfig_build_info`). */
export const AGENT_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
