// `node --import <this file>`: registers hooks.mjs, which holds the load of one module of the program
// (PODCONFIG_HOLD_MODULE, a URL suffix) until the parent writes a line to the child's stdin. It writes
// "holding <url>" to stderr first, so a test can act at that exact point: while the modules load.
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
