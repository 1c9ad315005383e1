import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '@podconfig/core';
import { messageWithCauses } from './run-cli.js';

describe('messageWithCauses()', () => {
  it('appends each cause the message does not already say, on one line', () => {
    const inner = new Error("Cannot find module '/x/y.mjs'\nimported from /x");
    const err = new ConfigInvalidError('handler "./y.mjs": cannot load module', { cause: inner });
    expect(messageWithCauses(err)).toBe('handler "./y.mjs": cannot load module: Cannot find module \'/x/y.mjs\' imported from /x');
  });

  it('leaves out a cause the message repeats (a wrapped kubeconfig error)', () => {
    const inner = new Error('kubeconfig /k: does not exist');
    expect(messageWithCauses(new ConfigInvalidError('--kubeconfig: kubeconfig /k: does not exist', { cause: inner })))
      .toBe('--kubeconfig: kubeconfig /k: does not exist');
  });
});
