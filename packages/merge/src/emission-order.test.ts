import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { sortForEmission } from './emission-order.js';

const names = (pods: readonly { metadata?: { name?: string; uid?: string } }[]): string[] => pods.map((p) => `${p.metadata?.name}:${p.metadata?.uid}`);

describe(sortForEmission.name, () => {
  it('orders by creationTimestamp (missing or unparsable first), then full name, then UID', () => {
    const pods = [
      makePod('c', { uid: '1', creationTimestamp: '2026-01-01T00:00:02Z' }),
      makePod('b', { uid: '2', creationTimestamp: 'not a time' }),
      makePod('a', { uid: '4', creationTimestamp: '2026-01-01T00:00:01Z' }),
      makePod('a', { uid: '3', creationTimestamp: '2026-01-01T00:00:01Z' }),
      makePod('d', { uid: '5' }),
    ];
    expect(names(sortForEmission(pods, 'creation'))).toEqual(['b:2', 'd:5', 'a:3', 'a:4', 'c:1']);
  });

  it('orders by full name (name_namespace), then UID, ignoring creation times', () => {
    const pods = [
      makePod('b', { uid: '1', creationTimestamp: '2026-01-01T00:00:01Z' }),
      makePod('a', { uid: '3', namespace: 'z' }),
      makePod('a', { uid: '2', namespace: 'y' }),
    ];
    const sorted = sortForEmission(pods, 'full-name');
    expect(sorted).toBe(pods);
    expect(names(sorted)).toEqual(['a:2', 'a:3', 'b:1']);
  });

  it('orders by full name even when creation times say otherwise: only ADDs go by creation (D15)', () => {
    const pods = [
      makePod('a', { uid: '1', creationTimestamp: '2026-01-01T00:00:03Z' }),
      makePod('b', { uid: '2', creationTimestamp: '2026-01-01T00:00:02Z' }),
      makePod('c', { uid: '3', creationTimestamp: '2026-01-01T00:00:01Z' }),
    ];
    expect(names(sortForEmission(pods, 'full-name'))).toEqual(['a:1', 'b:2', 'c:3']);
    expect(names(sortForEmission(pods, 'creation'))).toEqual(['c:3', 'b:2', 'a:1']);
  });
});
