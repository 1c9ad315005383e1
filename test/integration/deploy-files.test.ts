import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { FakeApiServer, makePod, tempDir } from '@podconfig/testing';
import { AGENT_BIN, AgentProcess, eventually } from '../support/agent-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): Promise<string> => readFile(join(ROOT, path), 'utf8');

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects parsed from YAML are walked loosely */
type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } & Record<string, any>;

async function daemonSetFile(): Promise<K8sObject[]> {
  const docs = parseAllDocuments(await read('deploy/daemonset.yaml'));
  return docs.map((d) => {
    if (d.errors.length > 0) throw new Error(`deploy/daemonset.yaml: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS() as K8sObject;
  });
}

const one = (objects: K8sObject[], kind: string): K8sObject => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

/** `--flag` names an argument list uses (`--a=b` and `--a b` alike). */
const flagsOf = (args: readonly string[]): string[] => args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);

/** A systemd unit as `section.Key` → values (a key may repeat). */
function parseUnit(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    const key = `${section}.${line.slice(0, eq).trim()}`;
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return out;
}

/** Dockerfile instructions (continuations joined), grouped by stage. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: { from: string; instructions: [string, string][] }[] } {
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: { from: string; instructions: [string, string][] }[] = [];
  for (const line of logical) {
    const [op = '', ...rest] = line.split(/\s+/);
    const value = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const image = value.split(/\s+/)[0]!.replace(/\$\{(\w+)\}/g, (_m, name: string) => args.get(name) ?? '');
      stages.push({ from: image, instructions: [] });
    } else if (stages.length === 0 && op.toUpperCase() === 'ARG') {
      const [name = '', def = ''] = value.split('=');
      args.set(name, def);
    } else {
      stages.at(-1)?.instructions.push([op.toUpperCase(), value]);
    }
  }
  return { args, stages };
}

let helpText = '';
beforeAll(async () => {
  helpText = (await promisify(execFile)(process.execPath, [AGENT_BIN, '--help'])).stdout;
});

describe('deploy files', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;
  beforeEach(async () => {
    tmp = await tempDir('podconfig-deploy-');
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  /** Starts the built agent with a deployment's arguments, host paths and the status port swapped for test ones. */
  const startWith = async (args: readonly string[], replace: Readonly<Record<string, string>>): Promise<AgentProcess> => {
    const local = args.map((a) => Object.entries(replace).reduce((s, [from, to]) => s.split(from).join(to), a));
    agent = await AgentProcess.start(local, { cwd: tmp.path, env: { HOME: tmp.path } });
    return agent;
  };

  describe('deploy/daemonset.yaml', () => {
    it('grants only get/list/watch on pods and nodes, bound to the DaemonSet\'s service account', async () => {
      const objects = await daemonSetFile();
      const role = one(objects, 'ClusterRole');
      const binding = one(objects, 'ClusterRoleBinding');
      const account = one(objects, 'ServiceAccount');
      const ds = one(objects, 'DaemonSet');
      const rules = (role['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[])
        .flatMap((r) => r.resources.map((res) => ({ group: r.apiGroups.join(','), res, verbs: [...r.verbs].sort() })));
      expect(rules.sort((x, y) => x.res.localeCompare(y.res))).toEqual([
        { group: '', res: 'nodes', verbs: ['get', 'list', 'watch'] },
        { group: '', res: 'pods', verbs: ['get', 'list', 'watch'] },
      ]);
      expect(binding['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
      expect(binding['subjects']).toEqual([{ kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace }]);
      expect(ds.metadata.namespace).toBe(account.metadata.namespace);
      expect(ds['spec'].template.spec.serviceAccountName).toBe(account.metadata.name);
      expect(ds['spec'].selector.matchLabels).toEqual(ds['spec'].template.metadata.labels);
    });

    it('passes the node name from the downward API (spec.nodeName) to --node-name', async () => {
      const [container] = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec.containers as any[];
      const nodeArg = (container.args as string[]).find((a) => a.startsWith('--node-name'));
      const variable = /^--node-name=\$\((\w+)\)$/.exec(nodeArg ?? '')?.[1];
      expect(variable).toBeDefined();
      expect((container.env as any[]).find((e) => e.name === variable)).toEqual({ name: variable, valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
    });

    it('runs as a non-root user with a read-only root filesystem, no privilege escalation and no capabilities', async () => {
      const spec = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec;
      const [container] = spec.containers as any[];
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] },
      });
      expect(container.securityContext.capabilities.add).toBeUndefined();
      expect(container.securityContext.privileged).not.toBe(true);
    });

    it('mounts the host\'s /etc/kubernetes/manifests read-only where --pod-manifest-path points', async () => {
      const spec = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec;
      const [container] = spec.containers as any[];
      const hostVolume = (spec.volumes as any[]).find((v) => v.hostPath?.path === '/etc/kubernetes/manifests');
      const mount = (container.volumeMounts as any[]).find((m) => m.name === hostVolume?.name);
      expect(mount).toMatchObject({ readOnly: true });
      expect(container.args).toContain(`--pod-manifest-path=${String(mount.mountPath)}`);
      // Every other volume is pod-local: the host is visible only through the read-only manifests.
      expect((spec.volumes as any[]).filter((v) => v.hostPath !== undefined)).toEqual([hostVolume]);
    });

    it('probes /healthz and /readyz over the host network on the loopback port the status server listens on', async () => {
      const spec = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec;
      const [container] = spec.containers as any[];
      const status = (container.args as string[]).find((a) => a.startsWith('--status-address='))?.split('=')[1];
      expect(status).toMatch(/^127\.0\.0\.1:\d+$/);
      const port = Number(status!.split(':')[1]);
      expect(spec.hostNetwork).toBe(true); // the kubelet's probe of 127.0.0.1 then lands in the agent's network namespace
      expect(container.livenessProbe.httpGet).toEqual({ host: '127.0.0.1', path: '/healthz', port });
      expect(container.readinessProbe.httpGet).toEqual({ host: '127.0.0.1', path: '/readyz', port });
    });

    it('starts the agent with its arguments, and the probe paths answer 200', async () => {
      const [container] = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec.containers as any[];
      const args = container.args as string[];
      for (const flag of flagsOf(args)) expect(helpText).toContain(`${flag} `);
      const manifests = join(tmp.path, 'manifests');
      await mkdir(manifests);
      const a = await startWith(args, { '$(NODE_NAME)': 'deploy-node', '/etc/kubernetes/manifests': manifests, '127.0.0.1:10265': '127.0.0.1:0' });
      expect((await a.get('/healthz')).status).toBe(200);
      await eventually(async () => ((await a.get('/readyz')).status === 200 ? true : undefined), 15_000, '/readyz 200');
      await a.waitForLog((l) => l.msg === 'agent started' && l['nodeName'] === 'deploy-node');
      expect(await a.stop()).toEqual({ code: 0, signal: null });
    });
  });

  describe('Dockerfile', () => {
    it('builds with pnpm deploy --prod and runs podconfig-agent on node:20-slim as the DaemonSet\'s non-root user', async () => {
      const { stages } = parseDockerfile(await read('Dockerfile'));
      expect(stages.length).toBeGreaterThanOrEqual(2);
      const build = stages.slice(0, -1).flatMap((s) => s.instructions);
      expect(build.some(([op, v]) => op === 'RUN' && /pnpm .*--prod deploy|pnpm .*deploy .*--prod/.test(v) && v.includes('@podconfig/agent'))).toBe(true);
      const runtime = stages.at(-1)!;
      expect(runtime.from).toBe('node:20-slim');
      const users = runtime.instructions.filter(([op]) => op === 'USER').map(([, v]) => v);
      expect(users).toHaveLength(1);
      const [uid] = users[0]!.split(':');
      expect(uid).toMatch(/^\d+$/); // numeric, so that runAsNonRoot can verify it
      expect(Number(uid)).toBeGreaterThan(0);
      const ds = one(await daemonSetFile(), 'DaemonSet')['spec'].template.spec;
      expect(ds.securityContext.runAsUser).toBe(Number(uid));
      expect(runtime.instructions.find(([op]) => op === 'ENTRYPOINT')?.[1]).toBe('["podconfig-agent"]');
      const cmd = JSON.parse(runtime.instructions.find(([op]) => op === 'CMD')?.[1] ?? '[]') as string[];
      for (const flag of flagsOf(cmd)) expect(helpText).toContain(`${flag} `);
    });

    it('leaves node_modules, build output and VCS data out of the build context (.dockerignore)', async () => {
      const ignored = (await read('.dockerignore')).split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
      expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
      expect(ignored).toContain('!test/package.json'); // the workspace must match pnpm-lock.yaml
    });
  });

  describe('deploy/podconfig-agent.service', () => {
    it('restarts on failure and runs as an unprivileged, sandboxed user', async () => {
      const unit = parseUnit(await read('deploy/podconfig-agent.service'));
      const get = (key: string): string | undefined => unit.get(key)?.at(-1);
      expect(get('Service.Restart')).toBe('on-failure');
      expect(get('Service.NoNewPrivileges')).toBe('yes');
      expect(get('Service.ProtectSystem')).toBe('strict');
      expect(get('Service.ProtectHome')).toBe('yes');
      expect(get('Service.PrivateTmp')).toBe('yes');
      expect(get('Service.User')).toBeDefined();
      expect(get('Service.User')).not.toBe('root');
      expect(get('Service.CapabilityBoundingSet')).toBe('CAP_DAC_READ_SEARCH');
      expect(get('Service.MemoryDenyWriteExecute')).toBeUndefined(); // V8's JIT needs writable+executable memory
      expect(get('Service.RestartPreventExitStatus')).toBe('2'); // invalid configuration: do not loop
      expect(get('Install.WantedBy')).toBe('multi-user.target');
    });

    it('starts the agent with the ExecStart flags, which --help lists, watching the apiserver with the kubelet\'s kubeconfig, and SIGTERM ends it with status 0', async () => {
      const unit = parseUnit(await read('deploy/podconfig-agent.service'));
      const exec = unit.get('Service.ExecStart')!.at(-1)!.split(/\s+/);
      expect(exec.slice(0, 2)).toEqual(['/usr/bin/node', '/opt/podconfig/dist/bin/podconfig-agent.js']);
      const args = exec.slice(2);
      expect(args.join(' ')).toContain('--pod-manifest-path /etc/kubernetes/manifests');
      for (const flag of flagsOf(args)) expect(helpText).toContain(`${flag} `);
      expect(unit.get('Service.KillSignal')?.at(-1)).toBe('SIGTERM');

      expect(args.join(' ')).toContain('--kubeconfig /etc/kubernetes/kubelet.conf');

      const manifests = join(tmp.path, 'manifests');
      await mkdir(manifests);
      // kubelet.conf stands for the node's credentials: a kubeconfig for a fake apiserver with one pod on this node.
      const fake = await new FakeApiServer().start();
      try {
        fake.createNode({ metadata: { name: 'deploy-node' } });
        fake.createPod(makePod('from-api', { nodeName: 'deploy-node' }));
        const kubeconfig = join(tmp.path, 'kubelet.conf');
        await writeFile(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${fake.url}"}}]\n` +
          'users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
        const a = await startWith([...args, '--node-name', 'deploy-node'], {
          '/etc/kubernetes/manifests': manifests, '/etc/kubernetes/kubelet.conf': kubeconfig, '/var/lib/podconfig': join(tmp.path, 'state'),
          '127.0.0.1:10265': '127.0.0.1:0',
        });
        await eventually(async () => ((await a.get('/readyz')).status === 200 ? true : undefined), 15_000, '/readyz 200');
        const started = await a.waitForLog((l) => l.msg === 'reconciler started');
        expect(started['handlers']).toEqual(['state-dir']);
        await eventually(async () => (await a.getJSON<{ items: { metadata: { name: string } }[] }>('/pods')).items.find((p) => p.metadata.name === 'from-api'), 15_000, 'the api pod');
        expect(await a.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      } finally {
        await fake.close();
      }
    });
  });
});
