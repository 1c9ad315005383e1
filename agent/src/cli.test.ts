import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './cli.js';
import { SETTINGS } from './settings.js';

const run = (argv: string[]) => {
  const r = parseCommandLine(argv, '1.2.3');
  if (r.kind !== 'run') throw new Error(`unexpected exit: ${r.output}`);
  return r.commandLine;
};

describe('parseCommandLine()', () => {
  it('accepts kubelet flags in both --flag value and --flag=value forms', () => {
    const cl = run(['--pod-manifest-path', '/etc/kubernetes/manifests', '--file-check-frequency=5s', '--node-name=Node-A']);
    expect(cl.flags).toMatchObject({ 'pod-manifest-path': '/etc/kubernetes/manifests', 'file-check-frequency': '5s', 'node-name': 'Node-A' });
  });

  it('shows the defaults in --help, as pflag does, and none for settings that are unset by default', () => {
    const r = parseCommandLine(['--help'], '1.2.3');
    if (r.kind !== 'exit') throw new Error('expected help');
    const help = r.output.replace(/\s+/g, ' ');
    for (const shown of ['--file-check-frequency <DURATION> periodic full re-scan of the manifest path (events trigger re-scans too) (default 20s)',
      '--sync-frequency <DURATION> periodic re-sync of every pod with the handlers (jittered up to +50%) (default 1m0s)', '(default 10s)', '(default 8)', '(default true)', '(default "per-source")', '(default "127.0.0.1:10265")', '(default "info")']) {
      expect(help).toContain(shown);
    }
    expect(help).not.toMatch(/--pod-manifest-path <PATH> [^-]*\(default/);
    expect(help).not.toMatch(/--keep-managed-fields [^-]*\(default/); // pflag leaves zero values (false) out
  });

  it('passes --metrics-bind-address on in both forms, and lists it in --help without a default (unset: off)', () => {
    expect(run(['--metrics-bind-address', '0.0.0.0:10266']).flags).toEqual({ 'metrics-bind-address': '0.0.0.0:10266' });
    expect(run(['--metrics-bind-address=[::]:10266']).flags).toEqual({ 'metrics-bind-address': '[::]:10266' });
    expect(run(['--metrics-bind-address=off']).flags).toEqual({ 'metrics-bind-address': 'off' });
    const r = parseCommandLine(['--help'], '1.2.3');
    if (r.kind !== 'exit') throw new Error('expected help');
    expect(r.output).toContain('--metrics-bind-address <HOST:PORT>');
    expect(r.output.replace(/\s+/g, ' ')).not.toMatch(/--metrics-bind-address <HOST:PORT> [^-]*\(default/);
  });

  it('maps --hostname-override to the node name', () => {
    expect(run(['--hostname-override', 'n1']).flags['node-name']).toBe('n1');
  });

  it('refuses --node-name and --hostname-override with two values, and takes them with one', () => {
    expect(parseCommandLine(['--node-name', 'aa', '--hostname-override', 'bb'], '1.2.3')).toEqual({
      kind: 'exit', code: 1, output: 'podconfig-agent: --node-name and --hostname-override give two values for one setting: give one of them\n',
    });
    expect(run(['--hostname-override', 'aa', '--node-name', 'aa']).flags['node-name']).toBe('aa');
  });

  it('reports the name typed for an alias, so errors name --hostname-override, not --node-name', () => {
    expect(run(['--hostname-override=']).flagNames).toEqual({ 'node-name': 'hostname-override' });
    expect(run(['--node-name=n1']).flagNames).toEqual({});
  });

  it('collects repeatable flags in order', () => {
    const cl = run(['--handler', 'log', '--handler=state-dir=/tmp/s', '--manifest-url-header', 'a:1,a:2', '--manifest-url-header', 'b:3']);
    expect(cl.flags['handler']).toEqual(['log', 'state-dir=/tmp/s']);
    expect(cl.flags['manifest-url-header']).toEqual(['a:1,a:2', 'b:3']);
  });

  it('takes the kubelet\'s --feature-gates in both forms, repeatable, each value as typed (resolveConfig merges them)', () => {
    expect(run(['--feature-gates', 'WatchListClient=false']).flags).toEqual({ 'feature-gates': ['WatchListClient=false'] });
    expect(run(['--feature-gates=WatchListClient=true, AllAlpha=false', '--feature-gates', 'WatchListClient=false']).flags)
      .toEqual({ 'feature-gates': ['WatchListClient=true, AllAlpha=false', 'WatchListClient=false'] });
    expect(parseCommandLine(['--feature-gates'], '1.2.3')).toEqual({
      kind: 'exit', code: 1, output: "podconfig-agent: option '--feature-gates <'A=true,B=false'>' argument missing\n",
    });
    const r = parseCommandLine(['--help'], '1.2.3');
    const help = (r.kind === 'exit' ? r.output : '').replace(/\s+/g, ' ');
    expect(help).toContain("--feature-gates <'A=true,B=false'> feature gates, as the kubelet takes them");
    expect(help).toContain('WatchListClient=false turns the streaming initial list off, as --watch-list=false');
    expect(help).not.toMatch(/--feature-gates <[^>]*> [^-]*\(default/);
  });

  it('treats a bare --watch-list as true and keeps --watch-list=false', () => {
    expect(run(['--watch-list']).flags['watch-list']).toBe('true');
    expect(run(['--watch-list=false']).flags['watch-list']).toBe('false');
  });

  it('treats every bool flag alone as true, followed by another flag too, and keeps =false and =true', () => {
    const bools = SETTINGS.filter((s) => s.isBool === true).map((s) => s.flag);
    expect(bools).toEqual(expect.arrayContaining(['watch-list', 'keep-managed-fields']));
    for (const flag of bools) {
      expect(run([`--${flag}`, '--node-name=n1']).flags).toEqual({ [flag]: 'true', 'node-name': 'n1' });
      expect(run([`--${flag}=false`]).flags[flag]).toBe('false');
      expect(run([`--${flag}=true`]).flags[flag]).toBe('true');
    }
    expect(run(['--keep-managed-fields']).flags).toEqual({ 'keep-managed-fields': 'true' });
  });

  it('still requires a value for a flag that is not a bool', () => {
    const r = parseCommandLine(['--sync-frequency'], '1.2.3');
    expect(r.kind).toBe('exit');
    if (r.kind !== 'exit') return;
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('--sync-frequency');
  });

  it('returns the config file path', () => {
    expect(run(['--config', '/etc/podconfig.yaml']).configFile).toBe('/etc/podconfig.yaml');
    // As the kubelet: an empty --config is no config file.
    expect(run(['--config=']).configFile).toBeUndefined();
  });

  it('exits 0 with the help text for --help, listing kubelet flags', () => {
    const r = parseCommandLine(['--help'], '1.2.3');
    expect(r.kind).toBe('exit');
    if (r.kind !== 'exit') return;
    expect(r.code).toBe(0);
    for (const flag of ['--pod-manifest-path', '--file-check-frequency', '--sync-frequency', '--manifest-url', '--kubeconfig', '--handler', '--status-address']) {
      expect(r.output).toContain(flag);
    }
  });

  it('lists in --help only flags that have a row in the README.md flag table', async () => {
    const r = parseCommandLine(['--help'], '1.2.3');
    const flags = [...(r.kind === 'exit' ? r.output : '').matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!);
    expect(flags).toContain('--version');
    const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const firstCells = readme.split('\n').filter((line) => line.startsWith('| `-')).map((line) => line.split(' | ')[0]!);
    const missing = flags.filter((flag) => !firstCells.some((cell) => new RegExp(`\`${flag}[\` =]`).test(cell)));
    expect(missing).toEqual([]);
  });

  it('exits 0 with the version for --version and --version=true, the details for --version=raw; --version=false runs, as the kubelet\'s flag', () => {
    expect(parseCommandLine(['--version'], '1.2.3')).toEqual({ kind: 'exit', code: 0, output: 'podconfig-agent v1.2.3\n' });
    expect(parseCommandLine(['--version=true'], '1.2.3')).toEqual({ kind: 'exit', code: 0, output: 'podconfig-agent v1.2.3\n' });
    const raw = parseCommandLine(['--version=raw', '--node-name', 'n1'], '1.2.3');
    expect(raw.kind === 'exit' ? JSON.parse(raw.output) : raw).toEqual({ gitVersion: 'v1.2.3', nodeVersion: process.version, platform: `${process.platform}/${process.arch}` });
    expect(parseCommandLine(['--version=false', '--node-name', 'n1'], '1.2.3')).toMatchObject({ kind: 'run', commandLine: { flags: { 'node-name': 'n1' } } });
    expect(parseCommandLine(['--version=v9.9.9'], '1.2.3')).toEqual({ kind: 'exit', code: 1, output: 'podconfig-agent: --version: invalid argument "v9.9.9": give true, false or raw\n' });
  });

  it.each([
    ['0', 'info'], ['2', 'info'], ['3', 'info'], ['4', 'debug'], ['5', 'trace'], ['10', 'trace'],
  ])('takes the kubelet\'s --v=%s as --log-level=%s, naming --v in errors', (v, level) => {
    expect(run([`--v=${v}`]).flags).toEqual({ 'log-level': level });
    expect(run(['-v', v]).flagNames).toEqual({ 'log-level': 'v' });
    // pflag's shorthand forms: `-v=4` (the kubelet's and kubectl's common spelling) and `-v4`.
    expect(run([`-v=${v}`]).flags).toEqual({ 'log-level': level });
    expect(run([`-v${v}`]).flags).toEqual({ 'log-level': level });
  });

  it('leaves a value that starts with -v= alone: only the shorthand takes the = form', () => {
    expect(run(['--node-name', '-v=x']).flags).toEqual({ 'node-name': '-v=x' });
  });

  it.each([
    [['--v=high'], 'podconfig-agent: --v: invalid argument "high": a verbosity is a whole number >= 0\n'],
    [['--v=-1'], 'podconfig-agent: --v: invalid argument "-1": a verbosity is a whole number >= 0\n'],
    [['--v=2', '--log-level=debug'], 'podconfig-agent: --v and --log-level both set the log level: give one of them\n'],
  ])('refuses %j', (argv, line) => {
    expect(parseCommandLine(argv, '1.2.3')).toEqual({ kind: 'exit', code: 1, output: line });
  });

  it('exits non-zero naming an unknown flag', () => {
    const r = parseCommandLine(['--pod-manifest-pth', '/x'], '1.2.3');
    expect(r.kind).toBe('exit');
    if (r.kind !== 'exit') return;
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('--pod-manifest-pth');
  });

  it('names a misspelt --flag=value without its value (it may be a secret), with the hint', () => {
    for (const argv of [['--manifest-url-headr=X-Token:SECRET'], ['--node-name=n1', '--manifest-url-headr=X-Token:SEC=RET', 'extra']]) {
      expect(parseCommandLine(argv, '1.2.3')).toEqual({
        kind: 'exit', code: 1, output: "podconfig-agent: unknown option '--manifest-url-headr' (Did you mean --manifest-url-header?)\n",
      });
    }
    expect(parseCommandLine(['--nope=SECRET'], '1.2.3')).toEqual({ kind: 'exit', code: 1, output: "podconfig-agent: unknown option '--nope'\n" });
    expect(parseCommandLine(['-x=SECRET'], '1.2.3')).toEqual({ kind: 'exit', code: 1, output: "podconfig-agent: unknown option '-x'\n" });
  });

  it.each([
    [['--node-nam', 'x'], "podconfig-agent: unknown option '--node-nam' (Did you mean --node-name?)\n"],
    [['--pod-manifest-path'], "podconfig-agent: option '--pod-manifest-path <PATH>' argument missing\n"],
    [['extra-arg'], 'podconfig-agent: too many arguments. Expected 0 arguments but got 1.\n'],
  ])('gives a usage error %j as one podconfig-agent: line, as every invalid input', (argv, line) => {
    expect(parseCommandLine(argv, '1.2.3')).toEqual({ kind: 'exit', code: 1, output: line });
  });
});
