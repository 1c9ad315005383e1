import { describe, expect, it } from 'vitest';
import { EnvironmentProxy } from './environment-proxy.js';
import { ConfigInvalidError } from './errors.js';

const proxyFor = (env: NodeJS.ProcessEnv, target: string): string | undefined => new EnvironmentProxy(env).proxyFor(new URL(target))?.url.href;

describe(EnvironmentProxy.name, () => {
  it.each<[string, NodeJS.ProcessEnv, string, string | undefined]>([
    ['host:port as http', { HTTP_PROXY: '10.1.1.1:8080' }, 'http://example.com', 'http://10.1.1.1:8080/'],
    ['a name with a port as http', { HTTP_PROXY: 'cache.corp.example.com:1234' }, 'http://example.com', 'http://cache.corp.example.com:1234/'],
    ['a bare name as http', { HTTP_PROXY: 'cache.corp.example.com' }, 'http://example.com', 'http://cache.corp.example.com/'],
    ['an https proxy', { HTTP_PROXY: 'https://cache.corp.example.com' }, 'http://example.com', 'https://cache.corp.example.com/'],
    ['a socks5 proxy', { HTTPS_PROXY: 'socks5://10.1.1.1' }, 'https://example.com', 'socks5://10.1.1.1'],
    ['a socks5h proxy, as Go takes it', { HTTP_PROXY: 'socks5h://user:pw@proxy.tld:1080' }, 'http://example.com', 'socks5h://user:pw@proxy.tld:1080'],
    ['HTTP_PROXY for http only', { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'http://insecure.tld/', 'http://http.proxy.tld/'],
    ['HTTPS_PROXY for https', { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'https://secure.tld/', 'http://secure.proxy.tld/'],
    ['no HTTPS_PROXY: https goes direct', { HTTP_PROXY: 'http.proxy.tld' }, 'https://secure.tld/', undefined],
    ['nothing set', {}, 'https://secure.tld/', undefined],
    ['the lowercase form', { https_proxy: 'lower.tld:1' }, 'https://x.tld/', 'http://lower.tld:1/'],
    ['the uppercase form first', { HTTPS_PROXY: 'upper.tld:1', https_proxy: 'lower.tld:1' }, 'https://x.tld/', 'http://upper.tld:1/'],
    ['an empty uppercase form skipped', { HTTPS_PROXY: '', https_proxy: 'lower.tld:1' }, 'https://x.tld/', 'http://lower.tld:1/'],
    ['never localhost', { HTTPS_PROXY: 'p:1' }, 'https://localhost:6443/', undefined],
    ['never a loopback address', { HTTPS_PROXY: 'p:1' }, 'https://127.0.0.2:6443/', undefined],
    ['never ::1', { HTTPS_PROXY: 'p:1' }, 'https://[::1]:6443/', undefined],
    ['never an IPv4-mapped loopback address', { HTTPS_PROXY: 'p:1' }, 'https://[::ffff:127.0.0.1]/', undefined],
    ['::2 is not loopback', { HTTPS_PROXY: 'p:1' }, 'https://[::2]/', 'http://p:1/'],
    ['NO_PROXY name: the name', { HTTP_PROXY: 'proxy', NO_PROXY: 'example.com' }, 'http://example.com/', undefined],
    ['NO_PROXY name: a subdomain', { HTTP_PROXY: 'proxy', NO_PROXY: 'example.com' }, 'http://foo.example.com/', undefined],
    ['NO_PROXY .name: not the name', { HTTP_PROXY: 'proxy', NO_PROXY: '.example.com' }, 'http://example.com/', 'http://proxy/'],
    ['NO_PROXY: no match on a partial label', { HTTP_PROXY: 'proxy', NO_PROXY: 'ample.com' }, 'http://example.com/', 'http://proxy/'],
    ['NO_PROXY unicode against punycode', { HTTP_PROXY: 'proxy', NO_PROXY: '.示例.com' }, 'http://www.示例.com', undefined],
    ['NO_PROXY punycode against unicode', { HTTP_PROXY: 'proxy', NO_PROXY: 'xn--fsq092h.com' }, 'http://www.示例.com', undefined],
    ['NO_PROXY *', { HTTPS_PROXY: 'p:1', NO_PROXY: '*' }, 'https://anything.tld/', undefined],
    ['no_proxy lowercase', { HTTPS_PROXY: 'p:1', no_proxy: 'anything.tld' }, 'https://anything.tld/', undefined],
    ['NO_PROXY: names in any case', { HTTP_PROXY: 'proxy', NO_PROXY: 'Internal.Example.COM' }, 'http://api.internal.example.com/', undefined],
    ['NO_PROXY: a malformed entry ignored', { HTTP_PROXY: 'proxy', NO_PROXY: ':1' }, 'http://example.com/', 'http://proxy/'],
  ])('%s', (_, env, target, want) => {
    expect(proxyFor(env, target)).toBe(want);
  });

  it.each<[string, boolean]>([
    ['192.168.1.1', false], // the address
    ['192.168.1.2', true], // its entry has another port
    ['192.168.1.3', false], // address and port
    ['192.168.1.4', true],
    ['10.0.0.2', false], // in the IPv4 range
    ['10.0.0.4', true],
    ['[2001:db8::52:0:1]', false], // the IPv6 address
    ['[2001:db8::52:0:2]', true], // another port
    ['[2001:db8::52:0:3]', false], // [address]:port
    ['[2002:db8:a::123]', false], // in the IPv6 range
    ['[fe80::424b:c8be:1643:a1b6]', true],
    ['barbaz.net', true], // .barbaz.net: subdomains only
    ['www.barbaz.net', false],
    ['foobar.com', false],
    ['www.foobar.com', false],
    ['foofoobar.com', true], // not a label boundary
    ['baz.com', true],
    ['localhost.net', true],
    ['barbarbaz.net', true],
    ['wildcard.io', true], // *.wildcard.io: subdomains only
    ['nested.wildcard.io', false],
    ['awildcard.io', true],
  ])('NO_PROXY as Go reads it: %s:80 proxied %s', (host, proxied) => {
    const noProxy = 'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, '
      + '2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
    expect(proxyFor({ HTTP_PROXY: 'proxy.tld:3128', NO_PROXY: noProxy }, `http://${host}:80/`) !== undefined).toBe(proxied);
  });

  it('matches a NO_PROXY port against the scheme\'s default port', () => {
    const env = { HTTPS_PROXY: 'p:1', NO_PROXY: 'kube.internal:443' };
    expect(proxyFor(env, 'https://kube.internal/')).toBeUndefined();
    expect(proxyFor(env, 'https://kube.internal:6443/')).toBe('http://p:1/');
  });

  it('keeps the proxy\'s userinfo and names the variable it came from', () => {
    const found = new EnvironmentProxy({ https_proxy: 'http://user:pw@proxy.tld:3128' }).proxyFor(new URL('https://kube.tld'));
    expect(found?.variable).toBe('https_proxy');
    expect([found?.url.username, found?.url.password]).toEqual(['user', 'pw']);
  });

  it('refuses userinfo with a malformed percent escape, without quoting it', () => {
    expect(() => proxyFor({ HTTP_PROXY: 'http://u:%zz@proxy.tld' }, 'http://example.com/')).toThrow(new ConfigInvalidError(
      'HTTP_PROXY: its user:password has a malformed percent escape or is not UTF-8'));
  });

  it.each(['ftp://proxy.tld', 'http://', '::', 'socks4://proxy.tld'])('refuses %j as a configuration error naming the variable, not the value', (value) => {
    expect(() => proxyFor({ HTTPS_PROXY: value }, 'https://example.com/')).toThrow(new ConfigInvalidError(
      'HTTPS_PROXY: not a proxy URL (http://host:port, https://host:port, socks5://host:port or socks5h://host:port, or host:port)'));
  });

  it('reads a proxy variable only for a target that would use it, as Go does: an unusable value elsewhere stops nothing', () => {
    const bad = 'ftp://user:secret@proxy.tld';
    // Taking the environment never throws.
    const proxies = new EnvironmentProxy({ HTTP_PROXY: bad, https_proxy: bad, NO_PROXY: 'internal.tld' });
    expect(proxies.proxyFor(new URL('https://localhost:6443/'))).toBeUndefined(); // loopback
    expect(proxies.proxyFor(new URL('https://127.0.0.1:6443/'))).toBeUndefined();
    expect(proxies.proxyFor(new URL('http://api.internal.tld/'))).toBeUndefined(); // NO_PROXY
    expect(proxyFor({ HTTPS_PROXY: bad, NO_PROXY: '*' }, 'https://anything.tld/')).toBeUndefined();
    expect(proxyFor({ HTTP_PROXY: bad }, 'https://kube.tld/')).toBeUndefined(); // HTTP_PROXY is never read for https
    expect(proxyFor({ HTTPS_PROXY: bad }, 'http://manifests.tld/')).toBeUndefined(); // nor HTTPS_PROXY for http
    // Where it would be used, it is an error naming the variable, never its credentials.
    expect(() => proxies.proxyFor(new URL('http://example.com/'))).toThrow(/^HTTP_PROXY: not a proxy URL/);
    expect(() => proxies.proxyFor(new URL('https://example.com/'))).toThrow(/^https_proxy: not a proxy URL/);
    expect(() => proxies.proxyFor(new URL('https://example.com/'))).not.toThrow(/secret/);
  });

  it('reads each variable once: every target it is used for gets the same proxy', () => {
    const proxies = new EnvironmentProxy({ HTTPS_PROXY: 'proxy.tld:3128' });
    const first = proxies.proxyFor(new URL('https://a.tld/'));
    expect(first?.url.href).toBe('http://proxy.tld:3128/');
    expect(proxies.proxyFor(new URL('https://b.tld/'))).toBe(first);
  });
});
