import type { Pod } from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { PodIntake } from './pod-intake.js';

const wirePod = (): Pod => {
  const pod = makePod('p');
  return { ...pod, metadata: { ...pod.metadata, managedFields: [{ manager: 'kubelet', operation: 'Update' }] } };
};

describe(PodIntake.name, () => {
  describe('transform()', () => {
    it('drops managedFields and deep-freezes pods until the first push, then only drops them', () => {
      const intake = new PodIntake();
      const initial = intake.transform(wirePod());
      expect(initial.metadata).not.toHaveProperty('managedFields');
      expect(Object.isFrozen(initial) && Object.isFrozen(initial.spec!.containers[0])).toBe(true);
      intake.pushed();
      const later = intake.transform(wirePod());
      expect(later.metadata).not.toHaveProperty('managedFields');
      expect(Object.isFrozen(later)).toBe(false);
    });

    it('keeps managedFields with keepManagedFields, and leaves the decoded object itself', () => {
      const intake = new PodIntake({ keepManagedFields: true });
      const decoded = wirePod();
      expect(intake.transform(decoded)).toBe(decoded);
      expect(decoded.metadata?.managedFields).toHaveLength(1);
      expect(Object.isFrozen(decoded)).toBe(true);
    });
  });
});
