import { setFlagsFromString } from 'node:v8';
import { runInThisContext } from 'node:vm';

let haveSameMap: ((a: object, b: object) => boolean) | undefined;

/**
 * Whether V8 gave two objects the same hidden class (map): for tests of code that builds objects on hot
 * paths, where a map per object would make every read of them megamorphic. Uses V8's `%HaveSameMap`,
 * parsed after turning on `--allow-natives-syntax` for this process.
 */
export function sameHiddenClass(a: object, b: object): boolean {
  if (haveSameMap === undefined) {
    setFlagsFromString('--allow-natives-syntax');
    haveSameMap = runInThisContext('(a, b) => %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  }
  return haveSameMap(a, b);
}
