import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { inspect } from 'node:util';
import { PodConfigError } from '@podconfig/core';
import { createTestPki, InstantClock, processRunning, tempDir } from '@podconfig/testing';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExecApiVersion, ExecPluginConfig } from './cluster-config.js';
import { ExecCredentialPlugin } from './exec-credential-plugin.js';

const V1: ExecApiVersion = 'client.authentication.k8s.io/v1';
const V1BETA1: ExecApiVersion = 'client.authentication.k8s.io/v1beta1';

/**
 * A credential plugin (sh, so that it starts fast): counts its runs in $PLUGIN_DIR/count, saves
 * the KUBERNETES_EXEC_INFO it got as info-<n> (and with READ_STDIN, its whole stdin as stdin-<n>), and prints an ExecCredential with token `tok-<n>`,
 * shaped by env variables.
 */
const PLUGIN = `#!/bin/sh
dir="$PLUGIN_DIR"
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$dir/count"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/info-$n"
if [ -n "$READ_STDIN" ]; then cat > "$dir/stdin-$n"; fi
if [ -n "$FAIL" ]; then printf '%s\\nmore detail\\n' "$FAIL" >&2; exit "\${EXIT:-3}"; fi
if [ -n "$RAW" ]; then printf '%s' "$RAW"; exit 0; fi
status="\\"token\\":\\"\${TOKEN_PREFIX:-tok-}$n\\""
if [ -n "$EXPIRES" ]; then status="$status,\\"expirationTimestamp\\":\\"$EXPIRES\\""; fi
if [ -n "$CERT_JSON" ]; then status="$status,\\"clientCertificateData\\":$CERT_JSON"; fi
if [ -n "$KEY_JSON" ]; then status="$status,\\"clientKeyData\\":$KEY_JSON"; fi
if [ -n "$NO_STATUS" ]; then printf '{"apiVersion":"%s","kind":"ExecCredential"}' "$REPLY_VERSION"; exit 0; fi
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{%s}}' "$REPLY_VERSION" "$status"
`;

let dir: { path: string; cleanup: () => Promise<void> };
let command: string;

beforeEach(async () => {
  dir = await tempDir('kube-exec-');
  command = join(dir.path, 'plugin');
  await writeFile(command, PLUGIN);
  await chmod(command, 0o755);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await dir.cleanup();
});

const logger = pino({ level: 'silent' });
const signal = new AbortController().signal;

function plugin(env: Record<string, string> = {}, more: Partial<ExecPluginConfig> = {}, clock = new InstantClock()): ExecCredentialPlugin {
  const config: ExecPluginConfig = {
    command,
    args: [],
    apiVersion: V1,
    ...more,
    env: Object.entries({ PLUGIN_DIR: dir.path, REPLY_VERSION: more.apiVersion ?? V1, ...env }).map(([name, value]) => ({ name, value })),
  };
  return new ExecCredentialPlugin({ config, clock, logger });
}

const runs = async (): Promise<number> => Number(await readFile(join(dir.path, 'count'), 'utf8').catch(() => '0'));
const info = async (n: number): Promise<unknown> => JSON.parse(await readFile(join(dir.path, `info-${n}`), 'utf8'));

async function failure(promise: Promise<unknown>): Promise<PodConfigError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!PodConfigError.is(err)) throw new Error(`expected a PodConfigError, got ${String(err)}`);
  return err;
}

describe(ExecCredentialPlugin.name, () => {
  describe('get()', () => {
    it('runs a v1 plugin with KUBERNETES_EXEC_INFO (non-interactive) and the kubeconfig env, and returns its token', async () => {
      const creds = await plugin().get(signal);
      expect(creds.token?.reveal()).toBe('tok-1');
      expect(creds.expiresAt).toBeUndefined();
      expect(await info(1)).toEqual({ apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } });
    });

    it('reads a plugin that prints YAML as client-go does (sigs.k8s.io/yaml rules: a quoted "yes" stays a string)', async () => {
      const raw = `apiVersion: ${V1}\nkind: ExecCredential\nstatus:\n  token: "yes"\n  expirationTimestamp: 2030-01-01T00:00:00Z\n`;
      const creds = await plugin({ RAW: raw }).get(signal);
      expect(creds.token?.reveal()).toBe('yes');
      expect(creds.expiresAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    });

    it('gives the plugin no stdin: one that reads it to the end gets EOF at once (client-go, non-interactive)', async () => {
      const config: ExecPluginConfig = {
        command,
        args: [],
        apiVersion: V1,
        env: Object.entries({ PLUGIN_DIR: dir.path, REPLY_VERSION: V1, READ_STDIN: '1' }).map(([name, value]) => ({ name, value })),
      };
      // The timeout only stops a plugin left waiting on stdin from outliving the test.
      const p = new ExecCredentialPlugin({ config, clock: new InstantClock(), logger, timeoutMs: 10_000 });
      expect((await p.get(signal)).token?.reveal()).toBe('tok-1');
      expect(await readFile(join(dir.path, 'stdin-1'), 'utf8')).toBe('');
    });

    it('runs a v1beta1 plugin and passes the cluster when provideClusterInfo is set', async () => {
      const cluster = { server: 'https://127.0.0.1:6443', 'certificate-authority-data': 'Q0E=', config: { region: 'x' } };
      const creds = await plugin({}, { apiVersion: V1BETA1, cluster }).get(signal);
      expect(creds.token?.reveal()).toBe('tok-1');
      expect(await info(1)).toEqual({ apiVersion: V1BETA1, kind: 'ExecCredential', spec: { interactive: false, cluster } });
    });

    it('reads an RFC 3339 expirationTimestamp with a fraction and an offset, as Go does', async () => {
      const creds = await plugin({ EXPIRES: '2030-01-01T01:00:00.25+01:00' }).get(signal);
      expect(creds.expiresAt).toBe(Date.parse('2030-01-01T00:00:00.250Z'));
    });

    it('caches the credentials until their expirationTimestamp', async () => {
      const clock = new InstantClock({ start: Date.parse('2026-01-01T00:00:00Z') });
      const p = plugin({ EXPIRES: '2026-01-01T00:10:00Z' }, {}, clock);
      expect((await p.get(signal)).token?.reveal()).toBe('tok-1');
      clock.advance(10 * 60_000);
      expect((await p.get(signal)).token?.reveal()).toBe('tok-1');
      expect(await runs()).toBe(1);
      clock.advance(1);
      const renewed = await p.get(signal);
      expect(renewed.token?.reveal()).toBe('tok-2');
      expect(renewed.expiresAt).toBe(Date.parse('2026-01-01T00:10:00Z'));
      expect(await runs()).toBe(2);
    });

    it('shares one run among concurrent callers', async () => {
      const p = plugin();
      const all = await Promise.all([p.get(signal), p.get(signal), p.get(signal)]);
      expect(new Set(all.map((c) => c.token?.reveal()))).toEqual(new Set(['tok-1']));
      expect(await runs()).toBe(1);
    });

    it('returns a client certificate and key', async () => {
      const pki = await createTestPki();
      const creds = await plugin({ CERT_JSON: JSON.stringify(pki.client.cert), KEY_JSON: JSON.stringify(pki.client.key) }).get(signal);
      expect(creds.clientCertificate?.cert).toBe(pki.client.cert);
      expect(creds.clientCertificate?.key.reveal()).toBe(pki.client.key);
    });

    it('fails with PODCONFIG_AUTH_FAILED naming the command, never printing the output', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ REPLY_VERSION: V1BETA1, TOKEN_PREFIX: 'secret-' }, `is configured to use API version ${V1}, plugin returned version ${V1BETA1}`],
        [{ NO_STATUS: '1' }, "didn't return a status field"],
        [{ RAW: 'token: secret-raw\n' }, 'its output is not an ExecCredential'],
        [{ RAW: JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: {} }) }, "didn't return a token or cert/key pair"],
        [{ RAW: JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: { token: 'secret-x\r\nX-Evil: 1' } }) }, 'returned a token that holds a control character, which an HTTP header cannot carry'],
        [{ CERT_JSON: '"x"', TOKEN_PREFIX: 'secret-' }, 'returned only certificate or key, not both'],
        [{ EXPIRES: 'tomorrow', TOKEN_PREFIX: 'secret-' }, 'returned an expirationTimestamp that is not RFC 3339'],
        // Date.parse takes these; Go's time.Parse(time.RFC3339, …), which client-go decodes with, does not.
        [{ EXPIRES: '2030-01-01', TOKEN_PREFIX: 'secret-' }, 'returned an expirationTimestamp that is not RFC 3339'],
        [{ EXPIRES: '2030-01-01T00:00:00', TOKEN_PREFIX: 'secret-' }, 'returned an expirationTimestamp that is not RFC 3339'],
        [{ FAIL: 'no credentials configured' }, 'exited with code 3 (its stderr is logged at debug level)'],
      ];
      for (const [env, message] of cases) {
        const err = await failure(plugin(env).get(signal));
        expect(err.code).toBe('PODCONFIG_AUTH_FAILED');
        expect(err.retryable).toBe(true);
        expect(err.message).toBe(`exec credential plugin ${command}${message.startsWith('exited') ? ' ' : ': '}${message}`);
        expect(err.message).not.toContain('secret');
      }
    });

    it('keeps what the plugin prints on stderr out of the error, logging it at debug level only', async () => {
      const token = 'eyJhbGciOiJSUzI1NiJ9.fake-exec-token';
      const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
      const recording = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      const config: ExecPluginConfig = {
        command,
        args: [],
        apiVersion: V1,
        env: Object.entries({ PLUGIN_DIR: dir.path, FAIL: `error: token ${token} expired`, EXIT: '1' }).map(([name, value]) => ({ name, value })),
      };
      const err = await failure(new ExecCredentialPlugin({ config, clock: new InstantClock(), logger: recording }).get(signal));
      expect(err.message).toBe(`exec credential plugin ${command} exited with code 1 (its stderr is logged at debug level)`);
      for (const text of [err.message, String(err.stack), JSON.stringify(err), inspect(err, { depth: Infinity, showHidden: true })]) {
        expect(text).not.toContain(token);
      }
      const withToken = lines.filter((l) => JSON.stringify(l).includes(token));
      expect(withToken).toHaveLength(1);
      expect(withToken[0]).toMatchObject({ level: 20, msg: 'exec credential plugin stderr', command, stderr: `error: token ${token} expired\nmore detail` });
      expect(withToken[0]).not.toHaveProperty('err');
    });

    it("finds a bare command in the agent's PATH, as Go's exec.Command does, not in the PATH of the plugin's env", async () => {
      const mine = join(dir.path, 'agent-bin');
      const theirs = join(dir.path, 'plugin-bin');
      await mkdir(mine);
      await mkdir(theirs);
      await writeFile(join(mine, 'my-plugin'), PLUGIN, { mode: 0o755 });
      await writeFile(join(theirs, 'my-plugin'), '#!/bin/sh\nexit 7\n', { mode: 0o755 });
      await writeFile(join(theirs, 'their-plugin'), PLUGIN, { mode: 0o755 });
      vi.stubEnv('PATH', `${mine}${delimiter}${process.env.PATH ?? ''}`);
      // The plugin still runs with its env's PATH (its own lookups, `cat` here, use it).
      const env = { PATH: `${theirs}${delimiter}${process.env.PATH ?? ''}` };
      const found = await plugin(env, { command: 'my-plugin' }).get(signal);
      expect(found.token?.reveal()).toBe('tok-1');
      const err = await failure(plugin(env, { command: 'their-plugin', installHint: 'install their-plugin' }).get(signal));
      expect(err.message).toBe("exec credential plugin their-plugin was not found in the agent's PATH: install their-plugin");
    });

    it('explains a missing executable with the install hint', async () => {
      const missing = join(dir.path, 'no-such-plugin');
      const config: ExecPluginConfig = { command: missing, args: [], env: [], apiVersion: V1, installHint: 'install it with: brew install x' };
      const err = await failure(new ExecCredentialPlugin({ config, clock: new InstantClock(), logger }).get(signal));
      expect(err.message).toBe(`exec credential plugin ${missing} was not found: install it with: brew install x`);
    });

    it('rejects with the abort reason when the caller aborts; the run continues for others', async () => {
      const p = plugin();
      const controller = new AbortController();
      const reason = new Error('gone');
      const aborted = p.get(controller.signal);
      const other = p.get(signal);
      controller.abort(reason);
      await expect(aborted).rejects.toBe(reason);
      expect((await other).token?.reveal()).toBe('tok-1');
    });
  });

  describe('close() and the timeout', () => {
    /** A plugin that says it started (its pid in $PLUGIN_DIR/started), then never finishes on its own; `trap`: it ignores SIGTERM. */
    async function hangingPlugin(trap: boolean): Promise<string> {
      const hanging = join(dir.path, 'hanging');
      await writeFile(hanging, `#!/bin/sh\n${trap ? "trap '' TERM\n" : ''}echo $$ > "$PLUGIN_DIR/started.tmp"\nmv "$PLUGIN_DIR/started.tmp" "$PLUGIN_DIR/started"\n`
        + `${trap ? 'while :; do sleep 1; done' : 'exec sleep 600'}\n`);
      await chmod(hanging, 0o755);
      return hanging;
    }
    const started = async (): Promise<number> => {
      await expect.poll(() => readFile(join(dir.path, 'started'), 'utf8').then(() => true, () => false), { timeout: 10_000 }).toBe(true);
      return Number(await readFile(join(dir.path, 'started'), 'utf8'));
    };

    it.each([false, true])('close() kills a run in progress (ignoring SIGTERM: %s); its callers fail with PODCONFIG_AUTH_FAILED', async (trap) => {
      const hanging = await hangingPlugin(trap);
      const p = plugin({}, { command: hanging });
      try {
        const pending = p.get(signal);
        const pid = await started();
        p.close();
        const err = await failure(pending);
        expect(err.message).toBe(`exec credential plugin ${hanging} stopped: the client was closed`);
        // The process itself is gone, not only its callers' wait.
        await expect.poll(() => processRunning(pid), { timeout: 10_000 }).toBe(false);
      } finally {
        p.close();
      }
    });

    it('fails a run that outlasts timeoutMs as a timeout, and kills a plugin that ignores SIGTERM', async () => {
      const hanging = await hangingPlugin(true);
      const config: ExecPluginConfig = { command: hanging, args: [], apiVersion: V1, env: [{ name: 'PLUGIN_DIR', value: dir.path }] };
      const p = new ExecCredentialPlugin({ config, clock: new InstantClock(), logger, timeoutMs: 300 });
      try {
        const err = await failure(p.get(signal));
        expect(err.message).toBe(`exec credential plugin ${hanging} did not finish within 300 ms`);
        expect(await processRunning(await started())).toBe(false); // the run ended only once the plugin was gone
      } finally {
        p.close();
      }
    });
  });

  describe('refresh()', () => {
    it('runs the plugin again for the credentials that got a 401, but not when they were already rotated', async () => {
      const p = plugin();
      const first = await p.get(signal);
      const second = await p.refresh(first, signal);
      expect(second.token?.reveal()).toBe('tok-2');
      expect((await p.refresh(first, signal)).token?.reveal()).toBe('tok-2');
      expect(await runs()).toBe(2);
      expect((await p.get(signal)).token?.reveal()).toBe('tok-2');
    });
  });
});
