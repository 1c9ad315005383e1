import { afterEach, describe, expect, it, vi } from 'vitest';

describe('yaml-library', () => {
  afterEach(() => {
    vi.doUnmock('node:module');
    vi.resetModules();
  });

  it("loads the yaml package's ES module build, whose parser reads no environment variable per lexeme", async () => {
    const { YAML_BUILD, yaml } = await import('./yaml-library.js');
    expect(YAML_BUILD).toBe('esm');
    expect(yaml.parse('a: [1, b]')).toEqual({ a: [1, 'b'] });
    // The reason for that build: the Node.js build's parser reads process.env.LOG_TOKENS for every lexeme; this
    // one never looks (checked: the same count is 21 with the Node.js build).
    const real = process.env;
    let reads = 0;
    process.env = new Proxy(real, {
      get: (target, key) => {
        if (key === 'LOG_TOKENS') reads++;
        return Reflect.get(target, key) as unknown;
      },
    });
    try {
      expect([...new yaml.Parser().parse('a: 1\nb: [c, d]\n')].length).toBeGreaterThan(0);
    } finally {
      process.env = real;
    }
    expect(reads).toBe(0);
  });

  it("falls back to the package's own entry when that build cannot be found", async () => {
    vi.resetModules();
    vi.doMock('node:module', () => ({
      createRequire: () => ({ resolve: () => '/nowhere/yaml/package.json' }),
    }));
    const { YAML_BUILD, yaml } = await import('./yaml-library.js');
    expect(YAML_BUILD).toBe('node');
    expect(yaml.parse('a: [1, b]')).toEqual({ a: [1, 'b'] });
  });
});
