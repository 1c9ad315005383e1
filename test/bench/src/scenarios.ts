/** Which clients a scenario runs. `clientgo` runs only where /opt/realapi/bin/peer-clientgo exists. */
export type ClientName = 'podconfig' | 'peer' | 'limit' | 'clientgo';

export interface ApiScenario {
  readonly kind: 'api';
  readonly id: string;
  readonly title: string;
  readonly pods: number;
  readonly events: number;
  /** undefined: cluster-wide, no field selector. */
  readonly nodeName: string | undefined;
  /** Events per second; 0 = as fast as the client reads. */
  readonly rate: number;
  /** With `rate`: the stream's quiet time between the initial set and its first event (the server's `settleMs`). */
  readonly settleMs?: number;
  readonly clients: readonly ClientName[];
  /** podconfig's handler takes this long per call (the burst scenario). */
  readonly slowHandlerMs?: number;
  /** Clients still streaming this long after their first set stop there; events/s then counts the events reached. */
  readonly maxStreamMs?: number;
  /** podconfig keeps `metadata.managedFields` (`--keep-managed-fields`), as the other clients do. */
  readonly keepManagedFields?: boolean;
}

export interface FileScenario {
  readonly kind: 'file';
  readonly id: string;
  readonly title: string;
  readonly manifests: number;
  readonly edits: number;
}

export type Scenario = ApiScenario | FileScenario;

const ALL: readonly ClientName[] = ['podconfig', 'peer', 'limit', 'clientgo'];

export function scenarios(tiny: boolean): Scenario[] {
  const n = (full: number, small: number): number => (tiny ? small : full);
  return [
    { kind: 'api', id: 'node-110', title: `110 pods on the node, ${n(50_000, 500)} events`, pods: 110, events: n(50_000, 500),
      nodeName: 'node-a', rate: 0, clients: ALL },
    { kind: 'api', id: 'node-5000', title: `${n(5000, 300)} pods on the node, ${n(20_000, 300)} events`, pods: n(5000, 300),
      events: n(20_000, 300), nodeName: 'node-a', rate: 0, clients: ALL },
    { kind: 'api', id: 'cluster-50000', title: `${n(50_000, 500)} pods cluster-wide (no node selector), ${n(20_000, 300)} events`,
      pods: n(50_000, 500), events: n(20_000, 300), nodeName: undefined, rate: 0, clients: ALL, maxStreamMs: 30_000 },
    // D17: per-event cost flat up to 100,000 pods. client-node and client-go do not reach the marker at 50,000.
    { kind: 'api', id: 'cluster-100000', title: `${n(100_000, 600)} pods cluster-wide (no node selector), ${n(20_000, 300)} events (D17, podconfig and the limit)`,
      pods: n(100_000, 600), events: n(20_000, 300), nodeName: undefined, rate: 0, clients: ['podconfig', 'limit'], maxStreamMs: 30_000 },
    { kind: 'api', id: 'cluster-50000-keep-mf', title: `cluster-50000 with --keep-managed-fields (podconfig only: memory like for like with the limit)`,
      pods: n(50_000, 500), events: n(20_000, 300), nodeName: undefined, rate: 0, clients: ['podconfig'], maxStreamMs: 30_000, keepManagedFields: true },
    { kind: 'api', id: 'latency-2000', title: `110 pods, ${n(10_000, 200)} events at 2,000 events/s (latency)`, pods: 110,
      events: n(10_000, 200), nodeName: 'node-a', rate: 2000, settleMs: n(1000, 200), clients: ALL },
    { kind: 'api', id: 'burst-slow-handler', title: `${n(5000, 300)} pods, ${n(20_000, 300)} events, handler 2 ms per call (D16)`,
      pods: n(5000, 300), events: n(20_000, 300), nodeName: 'node-a', rate: 0, clients: ['podconfig'], slowHandlerMs: 2 },
    { kind: 'file', id: 'file-1000', title: `file source, ${n(1000, 20)} manifests, one-file edits`, manifests: n(1000, 20), edits: n(5, 2) },
  ];
}
