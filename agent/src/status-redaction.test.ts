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
    expect(shown?.lifecycle?.postStart).toBe(pod.spec?.containers[0]?.lifecycle?.postStart);
    expect(shown?.lifecycle?.preStop?.httpGet).toEqual({ path: '/stop', port: 8080, httpHeaders: [{ name: 'X-Token', value: REDACTED }] });
    expect(JSON.stringify(shown)).not.toMatch(/secret/);
  });

  it('returns the pod itself when it holds nothing to redact', () => {
    const pod: Pod = { metadata: { name: 'web', annotations: { team: 'a' } }, spec: { containers: [{ name: 'app', image: 'a', env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], livenessProbe: { httpGet: { path: '/', port: 80, httpHeaders: [] } }, lifecycle: { preStop: { httpGet: { path: '/stop', port: 80 } } } }] } };
    expect(redactPodForStatus(pod)).toBe(pod);
    expect(redactAnnotations(pod.metadata?.annotations)).toBe(pod.metadata?.annotations);
  });
});
