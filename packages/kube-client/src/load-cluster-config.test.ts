import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PodConfigError } from '@podconfig/core';
import { createTestPki, tempDir, type TestPki } from '@podconfig/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadClusterConfig } from './load-cluster-config.js';

let pki: TestPki;
let dir: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  pki = await createTestPki();
});
beforeEach(async () => {
  dir = await tempDir('kube-client-');
});
afterEach(async () => {
  await dir.cleanup();
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');

interface Stanzas {
  'current-context'?: string;
  clusters?: Record<string, Record<string, unknown>>;
  users?: Record<string, Record<string, unknown>>;
  contexts?: Record<string, Record<string, unknown>>;
}

/** Writes a kubeconfig (named stanzas given as maps, for brevity) and returns its path. */
async function writeKubeconfig(path: string, s: Stanzas): Promise<string> {
  const list = (m: Record<string, Record<string, unknown>> | undefined, item: string): unknown =>
    m === undefined ? undefined : Object.entries(m).map(([name, v]) => ({ name, [item]: v }));
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    ...(s['current-context'] === undefined ? {} : { 'current-context': s['current-context'] }),
    ...(s.clusters === undefined ? {} : { clusters: list(s.clusters, 'cluster') }),
    ...(s.users === undefined ? {} : { users: list(s.users, 'user') }),
    ...(s.contexts === undefined ? {} : { contexts: list(s.contexts, 'context') }),
  };
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, stringify(doc));
  return path;
}

const simple = (server: string, user: Record<string, unknown> = { token: 'tok' }): Stanzas => ({
  'current-context': 'main',
  clusters: { c: { server, 'certificate-authority-data': b64(pki.ca.cert) } },
  users: { u: user },
  contexts: { main: { cluster: 'c', user: 'u' } },
});

async function rejection(promise: Promise<unknown>): Promise<PodConfigError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!PodConfigError.is(err)) throw new Error(`expected a PodConfigError, got ${String(err)}`);
  return err;
}

describe('loadClusterConfig()', () => {
  it('reads the --kubeconfig file with its current-context', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443'));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.server.href).toBe('https://127.0.0.1:6443/');
    expect(config?.source).toBe(`kubeconfig:${file}#main`);
    expect(config?.tls.ca).toBe(pki.ca.cert);
    expect(config?.auth.type).toBe('token');
    expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe('tok');
    expect(config?.identity).toBe(`user "u" in kubeconfig ${file}`);
  });

  it('never shows credentials when the config is serialised', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', { token: 'super-secret-token' }));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(JSON.stringify(config)).not.toContain('super-secret-token');
    expect(JSON.stringify(config)).toContain('[REDACTED]');
  });

  it('refuses a proxy-url whose user:password has a malformed percent escape, without quoting it', async () => {
    for (const userinfo of ['us%zz:pw', 'user:p%FFw']) {
      const stanzas = simple('https://127.0.0.1:6443');
      stanzas.clusters!['c']!['proxy-url'] = `socks5://${userinfo}@127.0.0.1:1080`;
      const file = await writeKubeconfig(join(dir.path, 'kc'), stanzas);
      const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
      expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
      expect(err.message).toContain("invalid 'proxy-url'");
      expect(err.message).not.toContain(userinfo);
    }
  });

  it('takes HTTPS_PROXY/NO_PROXY as client-go does for a cluster without proxy-url: never for loopback, proxy-url first', async () => {
    const proxied = await writeKubeconfig(join(dir.path, 'remote'), simple('https://kube.example:6443'));
    const proxyOf = async (file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> =>
      (await loadClusterConfig({ kubeconfig: file, env }))?.proxyUrl?.href;
    expect(await proxyOf(proxied, { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128/');
    expect(await proxyOf(proxied, { https_proxy: 'socks5://proxy.corp' })).toBe('socks5://proxy.corp');
    expect(await proxyOf(proxied, { HTTP_PROXY: 'proxy.corp:3128' })).toBeUndefined(); // an https server
    expect(await proxyOf(proxied, { HTTPS_PROXY: 'proxy.corp:3128', NO_PROXY: 'localhost,.example' })).toBeUndefined();
    expect(await proxyOf(proxied, { HTTPS_PROXY: 'proxy.corp:3128', NO_PROXY: 'kube.example:443' })).toBe('http://proxy.corp:3128/');
    const loopback = await writeKubeconfig(join(dir.path, 'local'), simple('https://127.0.0.1:6443'));
    expect(await proxyOf(loopback, { HTTPS_PROXY: 'proxy.corp:3128' })).toBeUndefined();
    const withProxyUrl = simple('https://kube.example:6443');
    withProxyUrl.clusters!['c']!['proxy-url'] = 'http://kubeconfig-proxy:8080';
    const named = await writeKubeconfig(join(dir.path, 'named'), withProxyUrl);
    expect(await proxyOf(named, { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://kubeconfig-proxy:8080/');

    expect(await proxyOf(proxied, { HTTPS_PROXY: 'socks5h://proxy.corp:1080' })).toBe('socks5h://proxy.corp:1080'); // as Go takes it

    const err = await rejection(loadClusterConfig({ kubeconfig: proxied, env: { HTTPS_PROXY: 'ftp://user:secret@proxy.corp' } }));
    expect(err.code).toBe('PODCONFIG_CONFIG_INVALID');
    expect(err.message).toBe('HTTPS_PROXY: not a proxy URL (http://host:port, https://host:port, socks5://host:port or socks5h://host:port, or host:port)');
  });

  it('reads a proxy variable only when the server would use it, as Go does: an unusable one elsewhere stops nothing', async () => {
    const bad = 'ftp://user:secret@proxy.corp';
    const remote = await writeKubeconfig(join(dir.path, 'remote'), simple('https://kube.example:6443'));
    const loopback = await writeKubeconfig(join(dir.path, 'local'), simple('https://127.0.0.1:6443'));
    const plain = await writeKubeconfig(join(dir.path, 'plain'), simple('http://kube.example:8080'));
    const loaded = async (file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> => {
      const config = await loadClusterConfig({ kubeconfig: file, env });
      expect(config).toBeDefined();
      return config?.proxyUrl?.href;
    };
    expect(await loaded(remote, { HTTP_PROXY: bad })).toBeUndefined(); // HTTP_PROXY is not read for an https server
    expect(await loaded(plain, { HTTPS_PROXY: bad })).toBeUndefined(); // nor HTTPS_PROXY for an http one
    expect(await loaded(loopback, { HTTPS_PROXY: bad, HTTP_PROXY: bad })).toBeUndefined(); // loopback goes direct
    expect(await loaded(remote, { HTTPS_PROXY: bad, NO_PROXY: '*' })).toBeUndefined();
    expect(await loaded(remote, { HTTPS_PROXY: bad, NO_PROXY: '.example' })).toBeUndefined();
    // The one it would use is still refused, naming it, never quoting it.
    const err = await rejection(loadClusterConfig({ kubeconfig: plain, env: { http_proxy: bad, HTTPS_PROXY: 'proxy.corp:3128' } }));
    expect(err.code).toBe('PODCONFIG_CONFIG_INVALID');
    expect(err.message).toMatch(/^http_proxy: not a proxy URL /);
    expect(err.message).not.toContain('secret');
  });

  it('applies repeated << merge keys in turn and tells a quoted key from a plain one, as kubectl reads YAML', async () => {
    const file = join(dir.path, 'kc');
    await writeFile(file, [
      'apiVersion: v1', 'kind: Config', 'current-context: main',
      'x-server: &server { server: "https://127.0.0.1:6443" }', 'x-tls: &tls { insecure-skip-tls-verify: true }',
      'clusters:', '- name: c', '  cluster:', '    <<: *server', '    <<: *tls', '    "1": quoted', '    1: plain',
      'contexts:', '- name: main', '  context: { cluster: c }', '',
    ].join('\n'));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.server.href).toBe('https://127.0.0.1:6443/');
    expect(config?.tls.insecureSkipVerify).toBe(true);
    await writeFile(file, 'apiVersion: v1\nkind: Config\ncurrent-context: a\ncurrent-context: b\n');
    expect((await rejection(loadClusterConfig({ kubeconfig: file, env: {} }))).message).toContain('invalid YAML at line 4, column 1: Map keys must be unique');
  });

  it('uses the given context instead of current-context', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'one',
      clusters: { a: { server: 'https://127.0.0.1:1001' }, b: { server: 'https://127.0.0.1:1002' } },
      contexts: { one: { cluster: 'a' }, two: { cluster: 'b' } },
    });
    const config = await loadClusterConfig({ kubeconfig: file, context: 'two', env: {} });
    expect(config?.server.port).toBe('1002');
    expect(config?.source).toBe(`kubeconfig:${file}#two`);
    expect(config?.auth).toEqual({ type: 'none' });
  });

  it('throws PODCONFIG_KUBECONFIG_INVALID when the context does not exist', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443'));
    const err = await rejection(loadClusterConfig({ kubeconfig: file, context: 'nope', env: {} }));
    expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
    expect(err.message).toContain('context "nope" does not exist');
    expect(err.message).toContain(file);
  });

  it('says no kubeconfig file was found, and where it looked, when a context is given and no file exists', async () => {
    const sa = join(dir.path, 'sa'); // no service account: nothing but the loading rules answers
    const home = join(dir.path, 'home');
    await mkdir(home);
    const homeFile = join(home, '.kube', 'config');
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{ HOME: home }, `($KUBECONFIG is not set and ${homeFile} does not exist)`],
      [{ HOME: home, KUBECONFIG: '' }, `($KUBECONFIG is empty and ${homeFile} does not exist)`],
      [{ HOME: home, KUBECONFIG: join(dir.path, 'a') }, `($KUBECONFIG names ${join(dir.path, 'a')}, which does not exist)`],
      [{ HOME: home, KUBECONFIG: `${join(dir.path, 'a')}:${join(dir.path, 'b')}` },
        `($KUBECONFIG names ${join(dir.path, 'a')}:${join(dir.path, 'b')}, none of which exists)`],
      [{ HOME: home, KUBECONFIG: '::' }, '($KUBECONFIG "::" names no file)'],
    ];
    for (const [env, where] of cases) {
      const err = await rejection(loadClusterConfig({ context: 'foo', env, inClusterRoot: sa }));
      expect(err.code, JSON.stringify(env)).toBe('PODCONFIG_KUBECONFIG_INVALID');
      expect(err.message, JSON.stringify(env)).toBe(`context "foo" does not exist: no kubeconfig file found ${where}`);
    }
    // A file that exists but is empty keeps its message.
    await mkdir(join(home, '.kube'));
    await writeFile(homeFile, '');
    const err = await rejection(loadClusterConfig({ context: 'foo', env: { HOME: home }, inClusterRoot: sa }));
    expect(err.message).toBe(`context "foo" does not exist: no kubeconfig content in ${homeFile}`);
  });

  it('throws naming the file when --kubeconfig does not exist', async () => {
    const file = join(dir.path, 'missing');
    const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
    expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
    expect(err.message).toBe(`kubeconfig ${file}: does not exist`);
  });

  it('bounds what it reads: an endless --kubeconfig or referenced file stops at the limit, a wait for a FIFO\'s writer ends with the signal', async () => {
    const endless = await rejection(loadClusterConfig({ kubeconfig: '/dev/zero', env: {} }));
    expect(endless.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
    expect(endless.message).toBe('kubeconfig /dev/zero: cannot be read (larger than the limit of 16777216 bytes)');
    const fifo = join(dir.path, 'ca.fifo');
    await promisify(execFile)('mkfifo', [fifo]);
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'main',
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority': '/dev/zero' } },
      users: { u: { tokenFile: fifo } },
      contexts: { main: { cluster: 'c', user: 'u' } },
    });
    const referenced = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
    expect(referenced.message).toBe(`unable to read certificate-authority /dev/zero for cluster "c" in kubeconfig ${file} (larger than the limit of 16777216 bytes)`);
    const viaFifo = await writeKubeconfig(join(dir.path, 'kc2'), {
      'current-context': 'main', clusters: { c: { server: 'https://127.0.0.1:6443' } }, users: { u: { tokenFile: fifo } },
      contexts: { main: { cluster: 'c', user: 'u' } },
    });
    // Waited for on the event loop, as a blocking read waits, until the signal (the agent's shutdown) ends it.
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(loadClusterConfig({ kubeconfig: viaFifo, env: {}, signal: controller.signal })).rejects.toThrow(/^shutting down$/);
    const kubeconfigFifo = join(dir.path, 'kubeconfig.fifo');
    await promisify(execFile)('mkfifo', [kubeconfigFifo]);
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('stopped')), 50);
    await expect(loadClusterConfig({ kubeconfig: kubeconfigFifo, env: {}, signal: stop.signal })).rejects.toThrow(/^stopped$/);
  });

  it('throws naming the file and the position for invalid YAML, without quoting the content', async () => {
    const file = join(dir.path, 'kc');
    await writeFile(file, 'apiVersion: v1\nusers:\n- name: u\n  user:\n    token: sekret-value\n   bad: [\n');
    const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
    expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
    expect(err.message).toMatch(new RegExp(`^kubeconfig ${file}: invalid YAML at line \\d+, column \\d+`));
    expect(err.message).not.toContain('sekret');
  });

  it('throws for a field of the wrong type, naming the field', async () => {
    const file = join(dir.path, 'kc');
    await writeFile(file, stringify({ apiVersion: 'v1', clusters: [{ name: 'c', cluster: { server: ['x'] } }] }));
    const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
    expect(err.message).toBe(`kubeconfig ${file}: clusters[0].cluster.server: expected a string, got a list`);
  });

  it('reads YAML as kubectl does: merge keys apply, numbers and booleans are not strings, quoted words are not booleans', async () => {
    const head = 'apiVersion: v1\nkind: Config\ncurrent-context: m\ncontexts:\n- name: m\n  context: {cluster: c, user: u}\n';
    const cluster = (extra: string): string =>
      `clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority-data: ${b64(pki.ca.cert)}\n${extra}`;
    const file = join(dir.path, 'kc');
    // kubectl (go-yaml v2) applies `<<`: a merge overrides the keys before it, later keys override the merge.
    await writeFile(file, `${head}${cluster('')}users:\n- name: base\n  user: &base {token: merged, as: admin}\n- name: u\n  user:\n    <<: *base\n    as: bob\n`);
    const merged = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(merged?.auth.type === 'token' && merged.auth.token.reveal()).toBe('merged');
    expect(merged?.impersonate?.user).toBe('bob');

    const refused: [string, string][] = [
      [`${cluster('')}users:\n- name: u\n  user: {username: a, password: 0012345}\n`, 'users[0].user.password: expected a string, got a number (quote it)'],
      [`${cluster('')}users:\n- name: u\n  user: {token: 1e3}\n`, 'users[0].user.token: expected a string, got a number'],
      [`${cluster('')}users:\n- name: u\n  user: {token: 0x1F}\n`, 'users[0].user.token: expected a string, got a number'],
      [`${cluster('')}users:\n- name: u\n  user: {token: yes}\n`, 'users[0].user.token: expected a string, got a boolean'],
      [`${cluster('')}users:\n- name: u\n  user: {token: .inf}\n`, 'NaN or an infinity, which JSON cannot hold'],
      [`${cluster('    insecure-skip-tls-verify: "yes"\n')}`, 'clusters[0].cluster.insecure-skip-tls-verify: expected a boolean, got a string'],
      [`${cluster('    insecure-skip-tls-verify: 1\n')}`, 'clusters[0].cluster.insecure-skip-tls-verify: expected a boolean, got a number'],
    ];
    for (const [body, message] of refused) {
      await writeFile(file, `${head}${body}`);
      const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
      expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
      expect(err.message).toContain(message);
    }
    // Strings kubectl takes as they are: quoted, a timestamp, `1:20`, a hex number too big for Go.
    for (const [token, want] of [["'0012345'", '0012345'], ['"yes"', 'yes'], ['2001-01-01', '2001-01-01'], ['1:20', '1:20'], ['!!str 12', '12']]) {
      await writeFile(file, `${head}${cluster('')}users:\n- name: u\n  user:\n    token: ${token}\n`);
      const config = await loadClusterConfig({ kubeconfig: file, env: {} });
      expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe(want);
    }
    await writeFile(file, `${head}${cluster('    insecure-skip-tls-verify: on\n').replace(/ {4}certificate-authority-data.*\n/, '')}users:\n- name: u\n  user: {}\n`);
    expect((await loadClusterConfig({ kubeconfig: file, env: {} }))?.tls.insecureSkipVerify).toBe(true);
  });

  it('throws for invalid base64 data and for duplicate names', async () => {
    const bad = await writeKubeconfig(join(dir.path, 'bad'), {
      clusters: { c: { server: 'https://x', 'certificate-authority-data': 'not base64!' } },
    });
    expect((await rejection(loadClusterConfig({ kubeconfig: bad, env: {} }))).message).toContain(
      'clusters[0].cluster.certificate-authority-data: is not valid base64',
    );
    const dup = join(dir.path, 'dup');
    await writeFile(dup, stringify({ users: [{ name: 'u', user: {} }, { name: 'u', user: {} }] }));
    expect((await rejection(loadClusterConfig({ kubeconfig: dup, env: {} }))).message).toContain('users: duplicate name "u"');
  });

  it('merges the KUBECONFIG list: the first file to define a name wins whole, current-context from the first that sets it', async () => {
    const first = await writeKubeconfig(join(dir.path, 'first'), {
      clusters: { c: { server: 'https://127.0.0.1:1111' } },
      users: { u: { token: 'from-first' } },
    });
    const second = await writeKubeconfig(join(dir.path, 'second'), {
      'current-context': 'ctx',
      clusters: { c: { server: 'https://127.0.0.1:2222', 'tls-server-name': 'ignored' } },
      users: { u: { token: 'from-second' } },
      contexts: { ctx: { cluster: 'c', user: 'u' } },
    });
    const third = await writeKubeconfig(join(dir.path, 'third'), {
      'current-context': 'other',
      clusters: { o: { server: 'https://127.0.0.1:3333' } },
      contexts: { other: { cluster: 'o' } },
    });
    const missing = join(dir.path, 'missing');
    const config = await loadClusterConfig({ env: { KUBECONFIG: [missing, first, second, third, first].join(':') } });
    expect(config?.server.port).toBe('1111');
    expect(config?.tls.serverName).toBeUndefined();
    expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe('from-first');
    expect(config?.source).toBe(`kubeconfig:${second}#ctx`);
    expect(config?.identity).toBe(`user "u" in kubeconfig ${first}`);
  });

  it('prefers --kubeconfig over KUBECONFIG', async () => {
    const flag = await writeKubeconfig(join(dir.path, 'flag'), simple('https://127.0.0.1:1001'));
    const env = await writeKubeconfig(join(dir.path, 'env'), simple('https://127.0.0.1:1002'));
    const config = await loadClusterConfig({ kubeconfig: flag, env: { KUBECONFIG: env } });
    expect(config?.server.port).toBe('1001');
  });

  it('reads ~/.kube/config under homeDir when neither a flag nor KUBECONFIG is set', async () => {
    await writeKubeconfig(join(dir.path, 'home', '.kube', 'config'), simple('https://127.0.0.1:1003'));
    const config = await loadClusterConfig({ homeDir: join(dir.path, 'home'), env: {} });
    expect(config?.server.port).toBe('1003');
  });

  it('resolves relative paths against the directory of the file that defines the stanza', async () => {
    await writeFile(join(dir.path, 'ca.crt'), pki.ca.cert);
    await mkdir(join(dir.path, 'users', 'certs'), { recursive: true });
    await writeFile(join(dir.path, 'users', 'certs', 'client.crt'), pki.client.cert);
    await writeFile(join(dir.path, 'users', 'certs', 'client.key'), pki.client.key);
    await writeFile(join(dir.path, 'token'), '  tok-from-file\n');
    const clusters = await writeKubeconfig(join(dir.path, 'clusters.yaml'), {
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority': 'ca.crt' } },
    });
    const users = await writeKubeconfig(join(dir.path, 'users', 'users.yaml'), {
      'current-context': 'main',
      users: { u: { 'client-certificate': 'certs/client.crt', 'client-key': 'certs/client.key', tokenFile: '../token' } },
      contexts: { main: { cluster: 'c', user: 'u' } },
    });
    const config = await loadClusterConfig({ env: { KUBECONFIG: `${clusters}:${users}` } });
    expect(config?.tls.ca).toBe(pki.ca.cert);
    expect(config?.tls.clientCertificate?.cert).toBe(pki.client.cert);
    expect(config?.tls.clientCertificate?.certFile).toBe(join(dir.path, 'users', 'certs', 'client.crt'));
    expect(config?.auth).toMatchObject({ type: 'token', tokenFile: join(dir.path, 'token') });
    expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe('tok-from-file');
  });

  it('throws naming the file when a referenced file cannot be read', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'main',
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority': 'nope.crt' } },
      contexts: { main: { cluster: 'c' } },
    });
    const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
    expect(err.message).toBe(
      `unable to read certificate-authority ${join(dir.path, 'nope.crt')} for cluster "c" in kubeconfig ${file} (ENOENT: no such file or directory)`,
    );
  });

  it('returns undefined when there is no kubeconfig and no in-cluster service account', async () => {
    const config = await loadClusterConfig({ homeDir: dir.path, inClusterRoot: join(dir.path, 'sa'), env: {} });
    expect(config).toBeUndefined();
  });

  it('builds the in-cluster config from the service-account directory and KUBERNETES_SERVICE_HOST/PORT', async () => {
    const root = join(dir.path, 'sa');
    await mkdir(root);
    await writeFile(join(root, 'token'), 'sa-token\n');
    await writeFile(join(root, 'ca.crt'), pki.ca.cert);
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const config = await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env });
    expect(config?.server.href).toBe('https://[fd00::1]/');
    expect(config?.source).toBe('in-cluster');
    expect(config?.tls.ca).toBe(pki.ca.cert);
    expect(config?.auth).toMatchObject({ type: 'token', tokenFile: join(root, 'token') });
    expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe('sa-token');
  });

  it('sends an in-cluster config through HTTPS_PROXY unless NO_PROXY names the service address, as client-go', async () => {
    const root = join(dir.path, 'sa');
    await mkdir(root);
    await writeFile(join(root, 'token'), 'sa-token\n');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', HTTPS_PROXY: 'http://proxy.corp:3128' };
    expect((await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env }))?.proxyUrl?.href).toBe('http://proxy.corp:3128/');
    const excluded = { ...env, NO_PROXY: '10.96.0.0/12' };
    expect((await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env: excluded }))?.proxyUrl).toBeUndefined();
  });

  it('is not in-cluster without the service variables or the token, and warns about an unreadable ca.crt', async () => {
    const root = join(dir.path, 'sa');
    await mkdir(root);
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env })).toBeUndefined();
    await writeFile(join(root, 'token'), 'sa-token');
    expect(await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env: {} })).toBeUndefined();
    const config = await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env });
    expect(config?.server.href).toBe('https://10.0.0.1/');
    expect(config?.tls.ca).toBeUndefined();
    // The default roots named as a TLS error names them (core's trustedCas): Node.js's own, not the system's store.
    expect(config?.warnings).toEqual([
      `in-cluster CA ${join(root, 'ca.crt')} cannot be read (ENOENT: no such file or directory); trusting Node.js's bundled roots, not the system's store `
      + "(NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE) instead",
    ]);
    await writeFile(join(root, 'ca.crt'), 'not a certificate');
    expect((await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env }))?.warnings).toEqual([
      `in-cluster CA ${join(root, 'ca.crt')} contains no PEM certificate; trusting Node.js's bundled roots, not the system's store `
      + "(NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE) instead",
    ]);
  });

  it('trusts the certificates of a CA bundle that parse and skips the others, as Go\'s AppendCertsFromPEM; none that parses is an error', async () => {
    const bad = '-----BEGIN CERTIFICATE-----\nMIIBbad0000\n-----END CERTIFICATE-----\n';
    // A bad block first: OpenSSL would stop reading there, so only the good one may go on.
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'main',
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(bad + pki.ca.cert) } },
      contexts: { main: { cluster: 'c' } },
    });
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.tls.ca).toBe(`${pki.ca.cert}\n`);
    expect(config?.warnings).toEqual([`the certificate authority of cluster "c" in kubeconfig ${file} has 1 certificate that cannot be parsed: skipped, as kubectl skips them`]);
    const none = await writeKubeconfig(join(dir.path, 'none'), {
      'current-context': 'main',
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(bad + bad) } },
      contexts: { main: { cluster: 'c' } },
    });
    const err = await rejection(loadClusterConfig({ kubeconfig: none, env: {} }));
    expect(err.message).toBe(`the certificate authority of cluster "c" in kubeconfig ${none} contains no certificate that can be parsed`);

    const root = join(dir.path, 'sa');
    await mkdir(root);
    await writeFile(join(root, 'token'), 'sa-token');
    await writeFile(join(root, 'ca.crt'), pki.ca.cert + bad);
    const inCluster = await loadClusterConfig({ homeDir: dir.path, inClusterRoot: root, env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' } });
    expect(inCluster?.tls.ca).toBe(`${pki.ca.cert}\n`);
    expect(inCluster?.warnings).toEqual([`in-cluster CA ${join(root, 'ca.crt')} has 1 certificate that cannot be parsed: skipped, as kubectl skips them`]);
  });

  it('does not read the CA of a plain-http server, as kubectl does not; like kubectl it wants a certificate-authority file it can open', async () => {
    const garbage = join(dir.path, 'garbage.pem');
    await writeFile(garbage, 'not a certificate');
    for (const cluster of [{ 'certificate-authority-data': b64('not a certificate') }, { 'certificate-authority': garbage }]) {
      const file = await writeKubeconfig(join(dir.path, 'kc'), {
        'current-context': 'main',
        clusters: { c: { server: 'http://127.0.0.1:8080', ...cluster } },
        contexts: { main: { cluster: 'c' } },
      });
      const config = await loadClusterConfig({ kubeconfig: file, env: {} });
      expect(config?.tls.ca, JSON.stringify(cluster)).toBeUndefined();
      expect(config?.warnings).toEqual([`the TLS settings of cluster "c" in kubeconfig ${file} are not used: server http://127.0.0.1:8080 is plain http`]);
    }
    // client-go's ConfirmUsable opens a certificate-authority file whatever the scheme.
    const missing = await writeKubeconfig(join(dir.path, 'missing'), {
      'current-context': 'main',
      clusters: { c: { server: 'http://127.0.0.1:8080', 'certificate-authority': 'no-such-ca.pem' } },
      contexts: { main: { cluster: 'c' } },
    });
    const err = await rejection(loadClusterConfig({ kubeconfig: missing, env: {} }));
    expect(err.message).toBe(`unable to read certificate-authority ${join(dir.path, 'no-such-ca.pem')} for cluster "c" in kubeconfig ${missing} (ENOENT: no such file or directory)`);
  });

  it('skips an entry without a name, as kubectl does (it files it under "", which no context names); a second one is a duplicate', async () => {
    const file = join(dir.path, 'kc');
    const stanzas = {
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'main',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }, { cluster: { server: 'https://unused:1' } }],
      users: [{ name: '', user: { token: 'unused' } }, { name: 'u', user: { token: 'tok' } }],
      contexts: [{ name: 'main', context: { cluster: 'c', user: 'u' } }, { context: { cluster: 'c' } }],
    };
    await writeFile(file, stringify(stanzas));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.auth.type === 'token' && config.auth.token.reveal()).toBe('tok');
    await writeFile(file, stringify({ ...stanzas, contexts: [...stanzas.contexts, { name: '', context: {} }] }));
    expect((await rejection(loadClusterConfig({ kubeconfig: file, env: {} }))).message).toBe(`kubeconfig ${file}: contexts: duplicate name ""`);
    // Its fields are still checked, as kubectl decodes the whole file before it looks at names.
    await writeFile(file, stringify({ ...stanzas, users: [...stanzas.users, { user: { token: 5 } }] }));
    expect((await rejection(loadClusterConfig({ kubeconfig: file, env: {} }))).message).toBe(
      `kubeconfig ${file}: users[2].user.token: expected a string, got a number (quote it)`,
    );
  });

  it('prefers a kubeconfig to in-cluster, and uses in-cluster when the kubeconfig names no context', async () => {
    const root = join(dir.path, 'sa');
    await mkdir(root);
    await writeFile(join(root, 'token'), 'sa-token');
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443'));
    expect((await loadClusterConfig({ kubeconfig: file, inClusterRoot: root, env }))?.source).toBe(`kubeconfig:${file}#main`);
    const noContext = await writeKubeconfig(join(dir.path, 'no-context'), { clusters: { c: { server: 'https://127.0.0.1:1' } } });
    expect((await loadClusterConfig({ kubeconfig: noContext, inClusterRoot: root, env }))?.source).toBe('in-cluster');
    const err = await rejection(loadClusterConfig({ kubeconfig: noContext, inClusterRoot: root, env: {} }));
    expect(err.message).toBe(`kubeconfig ${noContext}: no current-context is set and no context was given`);
  });

  it('sends no credentials to a plain http server, and says so', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'main',
      clusters: { c: { server: 'http://127.0.0.1:8080' } },
      users: { u: { token: 'tok' } },
      contexts: { main: { cluster: 'c', user: 'u' } },
    });
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.auth).toEqual({ type: 'none', unsent: 'server http://127.0.0.1:8080 is plain http, and credentials go only over TLS' });
    expect(config?.warnings).toEqual([`the credentials of user "u" in kubeconfig ${file} are not sent: server http://127.0.0.1:8080 is plain http, and credentials go only over TLS`]);
  });

  it('takes a server without a scheme as plain http, as kubectl does, TLS settings or not, and says they go unused', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('127.0.0.1:6443'));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.server.href).toBe('http://127.0.0.1:6443/');
    expect(config?.auth).toEqual({ type: 'none', unsent: 'server http://127.0.0.1:6443 is plain http, and credentials go only over TLS' });
    expect(config?.warnings).toEqual([
      `the TLS settings of cluster "c" in kubeconfig ${file} are not used: server http://127.0.0.1:6443 is plain http`,
      `the credentials of user "u" in kubeconfig ${file} are not sent: server http://127.0.0.1:6443 is plain http, and credentials go only over TLS`,
    ]);
    for (const server of ['bob:hunter2@127.0.0.1:6443/api', 'https://bob:hunter2@127.0.0.1:6443']) {
      const err = await rejection(loadClusterConfig({ kubeconfig: await writeKubeconfig(join(dir.path, 'kc'), simple(server)), env: {} }));
      expect(err.message).not.toContain('hunter2');
    }
  });

  it('takes basic auth from a username, as client-go: a password alone sends nothing and leaves a tokenFile or exec plugin in charge', async () => {
    const tokenFile = join(dir.path, 'token');
    await writeFile(tokenFile, 'from-file\n');
    const cases: [Record<string, unknown>, unknown][] = [
      [{ password: 'pw' }, { type: 'none', unsent: 'its password is not sent: basic auth needs a username too' }],
      [{ username: 'bob' }, { type: 'basic', username: 'bob', password: expect.anything() as unknown }],
      [{ password: 'pw', tokenFile }, { type: 'token', token: expect.anything() as unknown, tokenFile }],
      [
        { password: 'pw', exec: { command: '/bin/true', apiVersion: 'client.authentication.k8s.io/v1beta1' } },
        { type: 'exec', exec: expect.objectContaining({ command: '/bin/true' }) as unknown },
      ],
    ];
    for (const [user, auth] of cases) {
      const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', user));
      const config = await loadClusterConfig({ kubeconfig: file, env: {} });
      expect(config?.auth, JSON.stringify(user)).toEqual(auth);
      // A password that nothing else stands in for is said to be unused (kubectl would prompt for the username).
      const unused = (config?.warnings ?? []).filter((w) => w.includes('basic auth needs a username too'));
      expect(unused, JSON.stringify(user)).toEqual(Object.keys(user).length === 1 && 'password' in user ? [`the password of user "u" in kubeconfig ${file} is not sent: basic auth needs a username too`] : []);
    }
    const withToken = await loadClusterConfig({
      kubeconfig: await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', { password: 'pw', tokenFile })),
      env: {},
    });
    expect(withToken?.auth.type === 'token' && withToken.auth.token.reveal()).toBe('from-file');
  });

  it('leaves an exec plugin unused beside a client certificate, as client-go (cert auth turns the plugin off), and says so', async () => {
    const user = {
      'client-certificate-data': b64(pki.client.cert),
      'client-key-data': b64(pki.client.key),
      exec: { command: '/bin/true', apiVersion: 'client.authentication.k8s.io/v1beta1' },
    };
    const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', user));
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    // No token or basic auth either: only the certificate makes the plugin step aside.
    expect(config?.auth).toEqual({ type: 'none' });
    expect(config?.tls.clientCertificate?.cert).toBe(pki.client.cert);
    expect(config?.warnings).toEqual([
      `the exec plugin of user "u" in kubeconfig ${file} is not used: the user also has a token, basic auth or a client certificate`,
    ]);
  });

  it('refuses interactiveMode Always only for a plugin that would run: beside a token or a client certificate it never does (client-go)', async () => {
    const exec = { command: '/bin/true', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' };
    const beside: Record<string, unknown>[] = [{ token: 'tok' }, { 'client-certificate-data': b64(pki.client.cert), 'client-key-data': b64(pki.client.key) }];
    for (const user of beside) {
      const file = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', { ...user, exec }));
      const config = await loadClusterConfig({ kubeconfig: file, env: {} });
      expect(config?.auth.type, Object.keys(user).join()).toBe('token' in user ? 'token' : 'none');
      expect(config?.warnings).toEqual([`the exec plugin of user "u" in kubeconfig ${file} is not used: the user also has a token, basic auth or a client certificate`]);
    }
    const alone = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', { exec }));
    expect((await rejection(loadClusterConfig({ kubeconfig: alone, env: {} }))).message).toBe(
      `user "u" in kubeconfig ${alone}: exec plugin cannot support interactive mode: podconfig runs without a terminal (interactiveMode Always)`,
    );
    // What client-go's validateAuthInfo checks is still checked beside a token.
    const badMode = await writeKubeconfig(join(dir.path, 'kc'), simple('https://127.0.0.1:6443', { token: 'tok', exec: { ...exec, interactiveMode: 'Sometimes' } }));
    expect((await rejection(loadClusterConfig({ kubeconfig: badMode, env: {} }))).message).toContain('invalid interactiveMode for user "u"');
  });

  it('rejects what client-go rejects: token with basic auth, CA with insecure, cert without key, bad exec settings', async () => {
    const cases: [Stanzas, string][] = [
      [simple('https://127.0.0.1:1', { token: 't', username: 'a', password: 'b' }), 'more than one authentication method found'],
      [simple('https://127.0.0.1:1', { token: 't', password: 'b' }), 'more than one authentication method found'],
      [simple('https://127.0.0.1:1', { tokenFile: 'f', username: 'a' }), 'username/password or bearer token may be set, but not both'],
      [simple('127.0.0.1:6443/prefix'), 'must be a URL or a host:port pair: without a scheme, it may not have a path'],
      [simple('https://bob:pw@127.0.0.1:6443'), 'carries a user:password: put credentials in the user\'s stanza'],
      [simple('https://127.0.0.1:1', { 'client-certificate-data': b64(pki.client.cert) }), 'client-key-data or client-key must be specified'],
      [simple('https://127.0.0.1:1', { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' } }), 'invalid apiVersion'],
      [simple('https://127.0.0.1:1', { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1' } }), 'interactiveMode must be specified'],
      [simple('https://127.0.0.1:1', { 'auth-provider': { name: 'oidc' } }), 'auth-provider "oidc" is not supported'],
      [simple('https://127.0.0.1:1', { 'as-groups': ['g'] }), 'without impersonating a user'],
      [simple('https://127.0.0.1:1', { as: 'a', 'as-user-extra': { k: ['ok', 'x\ry'] } }), 'as-user-extra "k"[1] holds a control character'],
      [simple('https://127.0.0.1:1', { token: 'a\nb' }), 'the token of user "u"'],
      [
        {
          'current-context': 'main',
          clusters: { c: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true, 'certificate-authority-data': b64(pki.ca.cert) } },
          contexts: { main: { cluster: 'c' } },
        },
        'specifying a root certificates file with the insecure flag is not allowed',
      ],
      [{ 'current-context': 'main', clusters: { c: {} }, contexts: { main: { cluster: 'c' } } }, 'no server found for cluster "c"'],
      [{ 'current-context': 'main', clusters: { c: { server: 'https://x' } }, contexts: { main: { cluster: 'c', user: 'ghost' } } }, 'user "ghost" does not exist'],
      [simple('https://127.0.0.1:1', { 'client-certificate-data': b64(pki.client.cert), 'client-key-data': b64(pki.server.key) }), 'is not usable'],
      [
        simple('https://127.0.0.1:1', {
          'client-certificate-data': b64(pki.client.cert),
          'client-key-data': b64(String(createPrivateKey(pki.client.key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }))),
        }),
        'the private key is encrypted (passphrase-protected), which is not supported',
      ],
      [
        simple('https://127.0.0.1:1', {
          'client-certificate-data': b64(pki.client.cert),
          'client-key-data': b64(String(createPrivateKey(pki.client.key).export({ type: 'sec1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }))),
        }),
        'the private key is encrypted (passphrase-protected), which is not supported',
      ],
    ];
    for (const [stanzas, message] of cases) {
      const file = await writeKubeconfig(join(dir.path, 'kc'), stanzas);
      const err = await rejection(loadClusterConfig({ kubeconfig: file, env: {} }));
      expect(err.code).toBe('PODCONFIG_KUBECONFIG_INVALID');
      expect(err.message).toContain(message);
    }
  });

  it('resolves exec plugins: relative commands against the kubeconfig, v1beta1 defaults, cluster info on request', async () => {
    const file = await writeKubeconfig(join(dir.path, 'kc'), {
      'current-context': 'main',
      clusters: { c: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(pki.ca.cert), 'tls-server-name': 'kube' } },
      users: {
        u: {
          exec: {
            command: './bin/plugin',
            args: ['--flag'],
            env: [{ name: 'A', value: '1' }],
            apiVersion: 'client.authentication.k8s.io/v1beta1',
            provideClusterInfo: true,
          },
        },
      },
      contexts: { main: { cluster: 'c', user: 'u' } },
    });
    const config = await loadClusterConfig({ kubeconfig: file, env: {} });
    expect(config?.auth).toEqual({
      type: 'exec',
      exec: {
        command: join(dir.path, 'bin', 'plugin'),
        args: ['--flag'],
        env: [{ name: 'A', value: '1' }],
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        cluster: {
          server: 'https://127.0.0.1:6443',
          'tls-server-name': 'kube',
          'certificate-authority-data': b64(pki.ca.cert),
        },
      },
    });
  });
});
