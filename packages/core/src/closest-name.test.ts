import { describe, expect, it } from 'vitest';
import { closestName } from './closest-name.js';

describe(closestName.name, () => {
  const names = ['staticPodPath', 'staticPodURL', 'syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'port', 'maxPods'];

  it.each([
    ['staticPodPth', 'staticPodPath'], // a letter left out
    ['staticPodPaht', 'staticPodPath'], // two letters swapped
    ['staticpodpath', 'staticPodPath'], // another case
    ['syncFrequnecy', 'syncFrequency'],
    ['fileCheckFrequncy', 'fileCheckFrequency'],
    ['PORT', 'port'], // a short name only in another case
  ])('takes %j for a misspelt %j', (typed, expected) => {
    expect(closestName(typed, names)).toBe(expected);
  });

  it.each([['sort'], ['maxPo'], ['registerNode'], ['staticPodURLHeaders2x']])('suggests nothing for %j: nothing is that close (short names are never guessed)', (typed) => {
    expect(closestName(typed, names)).toBeUndefined();
  });

  it('takes the closest of two candidates', () => {
    expect(closestName('httpCheckFrequncy', names)).toBe('httpCheckFrequency');
  });
});
