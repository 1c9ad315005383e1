// Module customization hooks (they run on Node.js's hooks thread, not the program's): see register.mjs.
import { readSync, writeSync } from 'node:fs';

const suffix = process.env.PODCONFIG_HOLD_MODULE;
let held = false;

/** Blocks this (hooks) thread until a line arrives on stdin; the program's thread keeps running. */
function waitForLine() {
  const buf = Buffer.alloc(64);
  for (;;) {
    try {
      const n = readSync(0, buf, 0, buf.length, null);
      if (n === 0 || buf.subarray(0, n).includes(10)) return;
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // non-blocking stdin: poll it
    }
  }
}

export async function load(url, context, nextLoad) {
  if (!held && suffix !== undefined && url.endsWith(suffix)) {
    held = true;
    writeSync(2, `holding ${url}\n`);
    waitForLine();
  }
  return nextLoad(url, context);
}
