#!/usr/bin/env node
// A committed entry point, so that package managers can link the bin before dist/ is built (`tsc -b`).
import '../dist/bin/podconfig-agent.js';
