import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from './errors.js';
import { checkNodeName, isNodeName } from './node-name.js';

describe('isNodeName', () => {
  it('takes DNS-1123 subdomains of at most 253 characters, in any case (the kubelet lowercases its name)', () => {
    for (const name of ['n1', 'node-a', 'Node-A', 'ip-10-0-0-1.ec2.internal', 'a'.repeat(253)]) expect(isNodeName(name), name).toBe(true);
    for (const name of ['', ' ', ' node', 'node_a', 'a b', '-a', 'a-', 'a..b', 'a.-b', '.a', 'a.', 'a'.repeat(254), 'nöde']) {
      expect(isNodeName(name), name).toBe(false);
    }
  });
});

describe('checkNodeName', () => {
  it('returns a node name as given', () => {
    expect(checkNodeName('Node-A', 'x')).toBe('Node-A');
  });

  it.each([
    ['', 'opt: the node name is empty'],
    [undefined, 'opt: the node name is empty'],
    ['  ', 'opt: the node name is empty (only white space)'],
    ['node_a', 'opt: "node_a" is not a valid node name (a DNS-1123 subdomain)'],
  ])('rejects %j with ConfigInvalidError naming the option and why', (name, message) => {
    const check = (): string => checkNodeName(name, 'opt');
    expect(check).toThrow(ConfigInvalidError);
    expect(check).toThrow(expect.objectContaining({ code: 'PODCONFIG_CONFIG_INVALID', message }));
  });
});
