import { describe, expect, it } from 'vitest';
import { ConfigInvalidError, PodConfigError } from '@podconfig/core';
import { configInvalidMessage } from './config-invalid-message.js';

describe(configInvalidMessage.name, () => {
  it("gives a configuration error's message, and fails when there is none or another error", () => {
    expect(configInvalidMessage(() => { throw new ConfigInvalidError('--x: bad'); })).toBe('--x: bad');
    expect(() => configInvalidMessage(() => 1)).toThrow('expected a PODCONFIG_CONFIG_INVALID error, got none');
    const other = new PodConfigError('PODCONFIG_TIMEOUT', 'slow');
    expect(() => configInvalidMessage(() => { throw other; })).toThrow(other);
  });
});
