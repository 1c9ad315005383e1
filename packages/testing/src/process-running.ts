import { readFile } from 'node:fs/promises';

/**
 * Whether a process is running: it exists (signal 0) and is not a zombie (a zombie's parent may be a PID 1
 * that never reaps, so "exists" alone would keep a killed process alive in a test's eyes).
 */
export async function processRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const procStat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return procStat !== '' && procStat.slice(procStat.lastIndexOf(')') + 2)[0] !== 'Z';
}
