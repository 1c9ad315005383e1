import { describe, expect, it } from 'vitest';
import { isJsonPrefix } from './json-prefix.js';

describe(isJsonPrefix.name, () => {
  it('is true for a JSON value cut off anywhere before its end', () => {
    const whole = '{"type":"ADDED","object":{"a":[1,-2.5e+3,true,false,null,"x\\"y\\u00e9"],"b":{}}}';
    for (let cut = 1; cut < whole.length; cut++) expect([cut, isJsonPrefix(whole.slice(0, cut))]).toEqual([cut, true]);
    for (const cut of ['  {', '[', '{"a":', '{"a":1,', '{"a":tr', '{"a":-', '{"a":1.', '{"a":1e', '{"a":1e-', '{"a":"\\u00', '["\\']) {
      expect([cut, isJsonPrefix(cut)]).toEqual([cut, true]);
    }
  });

  it('is false for a complete value, blank text and anything malformed', () => {
    for (const text of [
      '', '   ', '{}', '{"a":1}', '{"a":1} ', '{"a":1}}', '{"a":1}x', 'not json at all', '{]', '{"type":"ADDED","object":{]}',
      '{a:1', "{'a'", '{"a" 1', '{"a":1 2', '[1,]', '{"a":tx', '{"a":-x', '{"a":1.x', '{"a":01', '{"a":"\\x', '{"a":"\u0001', '{"a":1.+', '{"a":1e5.', '{"a":1.5.', '{"a":1.5e+3.', '{"a":1e5e',
    ]) {
      expect([text, isJsonPrefix(text)]).toEqual([text, false]);
    }
  });
});
