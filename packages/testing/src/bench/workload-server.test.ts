import { connect } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { BenchWorkload, FINAL_ANNOTATION, SEQ_ANNOTATION } from './bench-workload.js';
import { WorkloadServer } from './workload-server.js';

interface Line { type: string; object: { kind?: string; metadata?: { resourceVersion?: string; annotations?: Record<string, string> } } }

/** Reads watch lines until `stop` says so, then closes the response. */
async function readLines(url: string, stop: (line: Line) => boolean): Promise<Line[]> {
  const { body } = await request(url);
  const lines: Line[] = [];
  let rest = '';
  try {
    for await (const chunk of body) {
      rest += (chunk as Buffer).toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop()!;
      for (const part of parts) {
        const line = JSON.parse(part) as Line;
        lines.push(line);
        if (stop(line)) return lines;
      }
    }
  } finally {
    body.destroy();
  }
  return lines;
}

describe(BenchWorkload.name, () => {
  it('stamps each event with its sequence number and marks only the last one final', () => {
    const w = new BenchWorkload({ pods: 20, events: 200, nodeName: 'node-a' });
    const events = w.eventLines.map((b) => JSON.parse(b.toString()) as Line);
    expect(w.initialObjects).toHaveLength(20);
    expect(events.map((e) => e.object.metadata?.annotations?.[SEQ_ANNOTATION])).toEqual(events.map((_, i) => String(i + 1)));
    expect(events.filter((e) => e.object.metadata?.annotations?.[FINAL_ANNOTATION] === 'true')).toEqual([events.at(-1)]);
    expect(events.at(-1)!.type).toBe('MODIFIED');
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['ADDED', 'MODIFIED', 'DELETED']));
    expect(events.filter((e) => e.type === 'MODIFIED').length).toBeGreaterThan(150);
  });
});

describe(WorkloadServer.name, () => {
  let server: WorkloadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe('arm()', () => {
    it('serves a watch-list (initial ADDED lines, the end bookmark) and then every event up to the marker', async () => {
      server = await new WorkloadServer().start();
      const w = new BenchWorkload({ pods: 5, events: 40, nodeName: 'node-a' });
      server.load(w);
      server.arm({});
      const query = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-a';
      const lines = await readLines(`${server.url}/api/v1/pods?${query}`, (l) => l.object.metadata?.annotations?.[FINAL_ANNOTATION] === 'true');
      expect(lines.slice(0, 5).map((l) => l.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED', 'ADDED']);
      expect(lines[5]).toEqual({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1',
        metadata: { resourceVersion: w.listResourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } } });
      expect(lines).toHaveLength(5 + 1 + 40);
      const stats = server.stats();
      expect(stats.firstRequestAt).toBeGreaterThan(0);
      expect(stats.requests[0]).toContain('(watch-list)');
    });

    it('writes each watch line as its own HTTP chunk, as the API server writes an event', async () => {
      server = await new WorkloadServer().start();
      const w = new BenchWorkload({ pods: 30, events: 60, nodeName: 'node-a' });
      server.load(w);
      server.arm({});
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      socket.end('GET /api/v1/pods?watch=true&sendInitialEvents=true HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      let raw = Buffer.alloc(0);
      const last = Buffer.from(`${FINAL_ANNOTATION}":"true"`);
      for await (const data of socket) {
        raw = Buffer.concat([raw, data as Buffer]);
        const end = raw.indexOf(last);
        if (end !== -1 && raw.indexOf('\r\n', end) !== -1) break;
      }
      socket.destroy();
      // Decode the chunked framing: every chunk holds exactly one line.
      let at = raw.indexOf('\r\n\r\n') + 4;
      const chunks: string[] = [];
      while (at < raw.length) {
        const sizeEnd = raw.indexOf('\r\n', at);
        const size = Number.parseInt(raw.toString('latin1', at, sizeEnd), 16);
        if (sizeEnd === -1 || sizeEnd + 2 + size > raw.length) break;
        chunks.push(raw.toString('utf8', sizeEnd + 2, sizeEnd + 2 + size));
        at = sizeEnd + 2 + size + 2;
      }
      expect(chunks).toHaveLength(30 + 1 + 60);
      for (const chunk of chunks) expect(chunk.indexOf('\n')).toBe(chunk.length - 1);
    });

    it('serves a list and then the events to a watch from the list resourceVersion, and records send times when paced', async () => {
      server = await new WorkloadServer().start();
      const w = new BenchWorkload({ pods: 3, events: 10, nodeName: undefined });
      server.load(w);
      server.arm({ rate: 5000 });
      const list = (await (await request(`${server.url}/api/v1/pods`)).body.json()) as { kind: string; items: unknown[]; metadata: { resourceVersion: string } };
      expect(list.kind).toBe('PodList');
      expect(list.items).toHaveLength(3);
      expect(list.metadata.resourceVersion).toBe(w.listResourceVersion);
      const lines = await readLines(`${server.url}/api/v1/pods?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
        (l) => l.object.metadata?.annotations?.[FINAL_ANNOTATION] === 'true');
      expect(lines).toHaveLength(10);
      expect(lines.at(-1)!.object.metadata?.resourceVersion).toBe(w.finalResourceVersion);
      expect(server.stats().sendTimes).toHaveLength(10);
    });


    it('holds paced events for settleMs after the initial set of a watch-list', async () => {
      const waits: { ms: number; end: () => void }[] = [];
      const settleWait = (ms: number): Promise<void> => new Promise<void>((end) => void waits.push({ ms, end }));
      server = await new WorkloadServer({ settleWait }).start();
      server.load(new BenchWorkload({ pods: 2, events: 3, nodeName: 'node-a' }));
      server.arm({ rate: 5000, settleMs: 150 });
      const seen: string[] = [];
      let bookmarkSeen: () => void = () => undefined;
      const atBookmark = new Promise<void>((resolve) => (bookmarkSeen = resolve));
      const reading = readLines(`${server.url}/api/v1/pods?watch=true&sendInitialEvents=true`, (l) => {
        seen.push(l.type);
        if (l.type === 'BOOKMARK') bookmarkSeen();
        return l.object.metadata?.annotations?.[FINAL_ANNOTATION] === 'true';
      });
      await atBookmark;
      // The initial set is out and the server waits out settleMs: no event was written meanwhile.
      await expect.poll(() => waits.map((w) => w.ms)).toEqual([150]);
      expect(server.stats().sendTimes).toEqual([]);
      expect(seen).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
      waits[0]!.end();
      const lines = await reading;
      expect(lines.map((l) => l.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK', 'MODIFIED', 'MODIFIED', 'MODIFIED']);
      expect(server.stats().sendTimes).toHaveLength(3);
    });
    it('answers the node gate with an empty list and a watch-list that is only the end bookmark', async () => {
      server = await new WorkloadServer().start();
      server.load(new BenchWorkload({ pods: 1, events: 1, nodeName: 'node-a' }));
      const nodes = (await (await request(`${server.url}/api/v1/nodes`)).body.json()) as { kind: string; items: unknown[] };
      expect(nodes).toMatchObject({ kind: 'NodeList', items: [] });
      const lines = await readLines(`${server.url}/api/v1/nodes?watch=true&sendInitialEvents=true`, (l) => l.type === 'BOOKMARK');
      expect(lines.map((l) => l.object.kind)).toEqual(['Node']);
    });
  });
});
