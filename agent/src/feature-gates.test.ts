import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '@podconfig/core';
import { configInvalidMessage } from '@podconfig/testing';
import { parseFeatureGates, parseGoBool, unusedFeatureGates, validationFeatureGates, watchListWithGates } from './feature-gates.js';

const invalid = configInvalidMessage;
const flag = (...values: string[]) => parseFeatureGates(values.length === 1 ? values[0] : values, '--feature-gates', true);
const field = (raw: unknown) => parseFeatureGates(raw, 'config field "featureGates"', false);

describe('parseFeatureGates()', () => {
  describe('--feature-gates (as the kubelet\'s cliflag.MapStringBool reads it)', () => {
    it('reads Name=bool pairs split at commas, trimming names and values, and skips empty pairs (a trailing comma)', () => {
      expect(flag('WatchListClient=false,SidecarContainers=true')).toEqual({ WatchListClient: false, SidecarContainers: true });
      expect(flag(' WatchListClient = false , SidecarContainers=\ttrue,')).toEqual({ WatchListClient: false, SidecarContainers: true });
      expect(flag(',,AllAlpha=false')).toEqual({ AllAlpha: false });
      expect(flag('')).toEqual({});
    });

    it('merges repeated flags in order, a later value for a gate overriding an earlier one, within one value too', () => {
      expect(flag('WatchListClient=true,A1=true', 'WatchListClient=false', 'B2=false')).toEqual({ WatchListClient: false, A1: true, B2: false });
      expect(flag('WatchListClient=false,WatchListClient=true')).toEqual({ WatchListClient: true });
    });

    it('reads values as Go\'s strconv.ParseBool does, exactly (1, t, T, TRUE, true, True and the same for false)', () => {
      for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect([v, flag(`WatchListClient=${v}`)]).toEqual([v, { WatchListClient: true }]);
      for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect([v, flag(`WatchListClient=${v}`)]).toEqual([v, { WatchListClient: false }]);
      const allowed = '1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False, as Go\'s strconv.ParseBool reads them';
      expect(invalid(() => flag('WatchListClient=yes'))).toBe(`--feature-gates: invalid value of WatchListClient: "yes": must be true or false (${allowed})`);
      expect(invalid(() => flag('WatchListClient=tRUE'))).toBe(`--feature-gates: invalid value of WatchListClient: "tRUE": must be true or false (${allowed})`);
      expect(invalid(() => flag('WatchListClient='))).toBe(`--feature-gates: invalid value of WatchListClient: "": must be true or false (${allowed})`);
    });

    it('refuses a pair without "=" (the kubelet\'s "malformed pair, expect string=bool"), one of white space only too', () => {
      expect(invalid(() => flag('WatchListClient'))).toBe('--feature-gates: malformed pair "WatchListClient", expect Name=true|false');
      expect(invalid(() => flag('A1=true, ,B2=false'))).toBe('--feature-gates: malformed pair " ", expect Name=true|false');
      expect(invalid(() => flag('A1=true', 'WatchListClient:false'))).toBe('--feature-gates: malformed pair "WatchListClient:false", expect Name=true|false');
    });

    it('refuses a pair without a name or with a name no gate has (the kubelet: "unrecognized feature gate")', () => {
      expect(invalid(() => flag('=true'))).toBe('--feature-gates: "" is not a feature gate name (letters and digits, starting with a letter, as WatchListClient)');
      expect(invalid(() => flag('Watch-List=false'))).toBe('--feature-gates: "Watch-List" is not a feature gate name (letters and digits, starting with a letter, as WatchListClient)');
      expect(invalid(() => flag('__proto__=true'))).toContain('"__proto__" is not a feature gate name');
    });

    it('refuses a misspelling of a gate podconfig reads, with a hint: taken for another gate, it would change nothing', () => {
      expect(invalid(() => flag('watchListClient=false'))).toBe('--feature-gates: unrecognized feature gate "watchListClient" (did you mean "WatchListClient"?)');
      expect(invalid(() => flag('WatchListClinet=false'))).toBe('--feature-gates: unrecognized feature gate "WatchListClinet" (did you mean "WatchListClient"?)');
      // A real gate of another component, not a misspelling: accepted (and not used).
      expect(flag('WatchList=false')).toEqual({ WatchList: false });
    });
  });

  describe('featureGates (a config file\'s or the library\'s map, typed as the kubelet decodes its map[string]bool)', () => {
    it('takes booleans (YAML true/false, yes/no as go-yaml v2 reads them, are booleans by then)', () => {
      expect(field({ WatchListClient: false, SidecarContainers: true })).toEqual({ WatchListClient: false, SidecarContainers: true });
      expect(field({})).toEqual({});
    });

    it('refuses a string, a number or null for a gate, naming the gate', () => {
      expect(invalid(() => field({ WatchListClient: 'false' }))).toBe('config field "featureGates", gate "WatchListClient": must be true or false, got "false"');
      expect(invalid(() => field({ WatchListClient: 0 }))).toBe('config field "featureGates", gate "WatchListClient": must be true or false, got 0');
      expect(invalid(() => field({ WatchListClient: null }))).toBe('config field "featureGates", gate "WatchListClient": must be true or false, got null');
    });

    it('refuses what is not a mapping: the flag\'s text, a list', () => {
      expect(invalid(() => field('WatchListClient=false'))).toBe('config field "featureGates": must be a mapping of feature gate names to true or false (e.g. WatchListClient: false), got "WatchListClient=false"');
      expect(invalid(() => field(['WatchListClient']))).toBe('config field "featureGates": must be a mapping of feature gate names to true or false (e.g. WatchListClient: false), got a list');
    });

    it('checks the names as the flag\'s', () => {
      expect(invalid(() => field({ 'Watch List': true }))).toContain('"Watch List" is not a feature gate name');
      expect(invalid(() => field({ WATCHLISTCLIENT: false }))).toBe('config field "featureGates": unrecognized feature gate "WATCHLISTCLIENT" (did you mean "WatchListClient"?)');
    });
  });
});

describe('parseGoBool()', () => {
  it('is strconv.ParseBool', () => {
    expect(['1', 't', 'T', 'TRUE', 'true', 'True'].map(parseGoBool)).toEqual(Array(6).fill(true));
    expect(['0', 'f', 'F', 'FALSE', 'false', 'False'].map(parseGoBool)).toEqual(Array(6).fill(false));
    expect(['', ' true', 'yes', 'tRUE', 'on'].map(parseGoBool)).toEqual(Array(5).fill(undefined));
  });
});

describe('unusedFeatureGates()', () => {
  it('lists the gates podconfig does not read, by name, sorted', () => {
    expect(unusedFeatureGates({ WatchListClient: false, SidecarContainers: true, AllBeta: true, AllAlpha: false })).toEqual(['AllAlpha', 'SidecarContainers']);
    expect(unusedFeatureGates({ WatchListClient: true })).toEqual([]);
  });
});

describe('validationFeatureGates()', () => {
  it('names the given gates that change how the kubelet validates a static pod, AllAlpha and AllBeta among them', () => {
    expect(validationFeatureGates({ StrictIPCIDRValidation: false, WatchListClient: false, AllAlpha: true, SidecarContainers: true, TaintTolerationComparisonOperators: true }))
      .toEqual(['AllAlpha', 'StrictIPCIDRValidation', 'TaintTolerationComparisonOperators']);
    expect(validationFeatureGates({ WatchListClient: false })).toEqual([]);
  });
});

describe('watchListWithGates()', () => {
  const origin = (gate: string): string => (gate === 'AllBeta' ? 'config field "featureGates"' : '--feature-gates');
  const fromFlag = (given: string): boolean => given.startsWith('--');

  it('lets WatchListClient decide when the watch-list setting is not given', () => {
    expect(watchListWithGates({ value: true, origin: undefined }, { WatchListClient: false }, origin, fromFlag)).toEqual({ value: false, origin: '--feature-gates WatchListClient' });
    expect(watchListWithGates({ value: true, origin: undefined }, { WatchListClient: true }, origin, fromFlag)).toEqual({ value: true, origin: '--feature-gates WatchListClient' });
  });

  it('accepts the setting and the gate with the same value, and refuses them with two, naming both', () => {
    expect(watchListWithGates({ value: false, origin: '--watch-list' }, { WatchListClient: false }, origin, fromFlag)).toEqual({ value: false, origin: '--watch-list' });
    expect(() => watchListWithGates({ value: true, origin: '--watch-list' }, { WatchListClient: false }, origin, fromFlag)).toThrow(new ConfigInvalidError(
      '--watch-list turns the streaming initial list (watch-list, D13) on, but WatchListClient=false in --feature-gates turns it off: give one of them, or the same value'));
  });

  it('lets AllBeta decide only when neither WatchListClient nor the setting is given (WatchListClient is a beta gate)', () => {
    expect(watchListWithGates({ value: true, origin: undefined }, { AllBeta: false }, origin, fromFlag)).toEqual({ value: false, origin: 'config field "featureGates" AllBeta' });
    expect(watchListWithGates({ value: true, origin: undefined }, { AllBeta: false, WatchListClient: true }, origin, fromFlag)).toEqual({ value: true, origin: '--feature-gates WatchListClient' });
    expect(watchListWithGates({ value: true, origin: '--watch-list' }, { AllBeta: false }, origin, fromFlag)).toEqual({ value: true, origin: '--watch-list' });
    // AllAlpha leaves beta gates as they are.
    expect(watchListWithGates({ value: true, origin: undefined }, { AllAlpha: false }, origin, fromFlag)).toEqual({ value: true, origin: undefined });
  });

  it('leaves the setting (default true) as it is without gates', () => {
    expect(watchListWithGates({ value: true, origin: undefined }, {}, origin, fromFlag)).toEqual({ value: true, origin: undefined });
    expect(watchListWithGates({ value: false, origin: 'config field "watchList"' }, { SidecarContainers: true }, origin, fromFlag)).toEqual({ value: false, origin: 'config field "watchList"' });
  });
});
