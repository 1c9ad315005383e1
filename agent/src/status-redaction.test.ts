import type { Pod } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactAnnotations, redactPodForStatus } from './status-redaction.js';

describe('redactPodForStatus()', () => {
  it('redacts literal env values and spec-repeating annotations, keeping names, references and the rest', () => {
    const pod: Pod = {
      metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}', team: 'a' } },
      spec: {
        initContainers: [{ name: 'init', image: 'i', env: [{ name: 'TOKEN', value: 'init-secret' }] }],
        containers: [
          { name: 'app', image: 'a', env: [{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
          { name: 'side', image: 's' },
        ],
      },
    };
    const shown = redactPodForStatus(pod);
    expect(shown.metadata?.annotations).toEqual({ 'kubectl.kubernetes.io/last-applied-configuration': REDACTED, team: 'a' });
    expect(shown.spec?.initContainers?.[0]?.env).toEqual([{ name: 'TOKEN', value: REDACTED }]);
    expect(shown.spec?.containers[0]?.env).toEqual([
      { name: 'DB_PASSWORD', value: REDACTED }, { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
    ]);
    expect(shown.spec?.containers[1]).toBe(pod.spec?.containers[1]);
    expect(JSON.stringify(shown)).not.toMatch(/hunter2|init-secret/);
    expect(pod.spec?.containers[0]?.env?.[0]?.value).toBe('hunter2'); // the shared pod is not changed
  });

  it('redacts the header values of probes\' and lifecycle hooks\' httpGet, keeping their names, paths and ports', () => {
    const header = (value: string) => [{ name: 'Authorization', value }];
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        containers: [{
          name: 'app', image: 'a',
          livenessProbe: { httpGet: { path: '/healthz', port: 8080, httpHeaders: header('Bearer live-secret') }, periodSeconds: 5 },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
          startupProbe: { httpGet: { path: '/started', port: 8080, httpHeaders: header('start-secret') } },
          lifecycle: {
            postStart: { exec: { command: ['true'] } },
            preStop: { httpGet: { path: '/stop', port: 8080, httpHeaders: [{ name: 'X-Token', value: 'stop-secret' }] } },
          },
        }],
      },
    };
    const shown = redactPodForStatus(pod).spec?.containers[0];
    expect(shown?.livenessProbe).toEqual({ httpGet: { path: '/healthz', port: 8080, httpHeaders: header(REDACTED) }, periodSeconds: 5 });
    expect(shown?.readinessProbe).toBe(pod.spec?.containers[0]?.readinessProbe);
    expect(shown?.startupProbe?.httpGet?.httpHeaders).toEqual(header(REDACTED));
    expect(shown?.lifecycle?.postStart).toEqual({ exec: { command: [REDACTED] } }); // an exec command too (below)
    expect(shown?.lifecycle?.preStop?.httpGet).toEqual({ path: '/stop', port: 8080, httpHeaders: [{ name: 'X-Token', value: REDACTED }] });
    expect(JSON.stringify(shown)).not.toMatch(/secret/);
  });

  it('redacts command and args of every kind of container, keeping their length, as they may carry a --db-password=…', () => {
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        initContainers: [{ name: 'init', image: 'i', command: ['/bin/migrate', '--db-password=init-secret'] }],
        containers: [{ name: 'app', image: 'a', command: ['/app'], args: ['--db-password=app-secret', '-v'], workingDir: '/srv' }],
        ephemeralContainers: [{ name: 'debug', image: 'd', args: ['--token', 'debug-secret'] }],
      },
    };
    const shown = redactPodForStatus(pod).spec;
    expect(shown?.initContainers?.[0]).toEqual({ name: 'init', image: 'i', command: [REDACTED, REDACTED] });
    expect(shown?.containers[0]).toEqual({ name: 'app', image: 'a', command: [REDACTED], args: [REDACTED, REDACTED], workingDir: '/srv' });
    expect(shown?.ephemeralContainers?.[0]).toEqual({ name: 'debug', image: 'd', args: [REDACTED, REDACTED] });
    expect(JSON.stringify(shown)).not.toMatch(/secret|migrate/);
    expect(pod.spec?.containers[0]?.args?.[0]).toBe('--db-password=app-secret'); // the shared pod is not changed
  });

  it('redacts the exec commands of every probe and lifecycle hook, keeping the rest of the probe', () => {
    const exec = (secret: string) => ({ command: ['sh', '-c', `curl -H "Authorization: ${secret}" localhost`] });
    const redacted = { command: [REDACTED, REDACTED, REDACTED] };
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        containers: [{
          name: 'app', image: 'a',
          livenessProbe: { exec: exec('live-secret'), periodSeconds: 5 },
          readinessProbe: { exec: exec('ready-secret'), failureThreshold: 2 },
          startupProbe: { exec: exec('start-secret') },
          lifecycle: { postStart: { exec: exec('post-secret') }, preStop: { exec: exec('stop-secret') } },
        }],
        initContainers: [{ name: 'init', image: 'i', lifecycle: { preStop: { exec: exec('init-secret') } } }],
      },
    };
    const shown = redactPodForStatus(pod).spec;
    expect(shown?.containers[0]).toEqual({
      name: 'app', image: 'a',
      livenessProbe: { exec: redacted, periodSeconds: 5 },
      readinessProbe: { exec: redacted, failureThreshold: 2 },
      startupProbe: { exec: redacted },
      lifecycle: { postStart: { exec: redacted }, preStop: { exec: redacted } },
    });
    expect(shown?.initContainers?.[0]?.lifecycle).toEqual({ preStop: { exec: redacted } });
    expect(JSON.stringify(shown)).not.toMatch(/secret|curl/);
  });

  it('redacts the values of flexVolume options and CSI volume attributes, keeping their keys and the other volumes', () => {
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        containers: [{ name: 'app', image: 'a' }],
        volumes: [
          { name: 'flex', flexVolume: { driver: 'example/cifs', options: { username: 'u', password: 'flex-secret' }, secretRef: { name: 'cifs' } } },
          { name: 'csi', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { token: 'csi-secret' }, readOnly: true } },
          { name: 'plain', emptyDir: {} },
        ],
      },
    };
    const shown = redactPodForStatus(pod).spec;
    expect(shown?.volumes).toEqual([
      { name: 'flex', flexVolume: { driver: 'example/cifs', options: { username: REDACTED, password: REDACTED }, secretRef: { name: 'cifs' } } },
      { name: 'csi', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { token: REDACTED }, readOnly: true } },
      { name: 'plain', emptyDir: {} },
    ]);
    expect(shown?.volumes?.[2]).toBe(pod.spec?.volumes?.[2]);
    expect(shown?.containers).toBe(pod.spec?.containers);
    expect(JSON.stringify(shown)).not.toMatch(/flex-secret|csi-secret/);
  });

  it('redacts the query of an httpGet path and the userinfo and query of a gitRepo repository, keeping the rest', () => {
    const pod: Pod = {
      metadata: { name: 'web' },
      spec: {
        containers: [{
          name: 'app', image: 'a',
          readinessProbe: { httpGet: { path: '/ready?access_token=probe-secret', port: 8080 } },
          livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        }],
        volumes: [
          { name: 'src', gitRepo: { repository: 'https://user:git-secret@github.com/o/r.git', revision: 'main' } },
          { name: 'query', gitRepo: { repository: 'https://git.example/r.git?token=query-secret' } },
          { name: 'scp', gitRepo: { repository: 'git@github.com:o/r.git' } },
          { name: 'raw', gitRepo: { repository: 'https://u:ab#c?d@git.example/r.git' } },
        ],
      },
    };
    const shown = redactPodForStatus(pod).spec;
    expect(shown?.containers[0]?.readinessProbe).toEqual({ httpGet: { path: `/ready?${REDACTED}`, port: 8080 } });
    expect(shown?.containers[0]?.livenessProbe).toBe(pod.spec?.containers[0]?.livenessProbe);
    expect(shown?.volumes?.map((v) => v.gitRepo)).toEqual([
      { repository: `https://${REDACTED}@github.com/o/r.git`, revision: 'main' },
      { repository: `https://git.example/r.git?${REDACTED}` },
      { repository: 'git@github.com:o/r.git' },
      { repository: `https://${REDACTED}@git.example/r.git` },
    ]);
    expect(shown?.volumes?.[2]).toBe(pod.spec?.volumes?.[2]);
    expect(JSON.stringify(shown)).not.toMatch(/secret/);
  });

  it('returns the pod itself when it holds nothing to redact', () => {
    const pod: Pod = {
      metadata: { name: 'web', annotations: { team: 'a' } },
      spec: {
        containers: [{
          name: 'app', image: 'a', command: [], env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          livenessProbe: { httpGet: { path: '/', port: 80, httpHeaders: [] } }, readinessProbe: { tcpSocket: { port: 80 } },
          lifecycle: { preStop: { httpGet: { path: '/stop', port: 80 } }, postStart: { sleep: { seconds: 1 } } },
        }],
        volumes: [{ name: 'csi', csi: { driver: 'd' } }, { name: 'flex', flexVolume: { driver: 'f', options: {} } }],
      },
    };
    expect(redactPodForStatus(pod)).toBe(pod);
    expect(redactAnnotations(pod.metadata?.annotations)).toBe(pod.metadata?.annotations);
  });
});
