import { lineAndColumn } from './line-and-column.js';
import { MAX_NESTING_DEPTH } from './max-nesting-depth.js';

/**
 * The values (objects, arrays, strings, numbers, booleans and nulls; a member's key belongs to its value) a JSON
 * manifest may have. `JSON.parse` is cheap, but decoding what it built is not (schema, defaults, UID, validation,
 * the copy to the caller's thread), and the 10 MiB cap bounds the bytes, not the values: Node.js 20, through the
 * worker's 160 MB heap (MANIFEST_WORKER_HEAP_MB), decoded at most 373,000 values of the costliest shape measured
 * (31,000 containers with three probes each, which defaults more than double) and a map of at most 750,000 empty
 * labels; 10 MiB of them, 1.05 million, made V8 abort the whole process (nodejs/node#47224), and on the caller's
 * thread such manifests took 290–575 MB. A realistic API pod (managedFields, status) has ~300 values, a PodList of
 * 110 of them (the kubelet's `maxPods`) 27,000–33,000. At this limit, a margin of 3.7 under the first and 7.5 under
 * the second, the costliest shapes take a process 60–115 MB over its baseline, as YAML within its token limit does.
 *
 * Higher than MAX_YAML_TOKENS (50,000 tokens; a `key: value` member is three): that limit is set by the yaml
 * library's parse, up to ~2.5 KB a node, and `JSON.parse` takes ~10 bytes a byte of text.
 */
export const MAX_JSON_VALUES = 100_000;

/**
 * JSON from this many characters on is counted before it is parsed. Every value takes a character of its own and
 * every value after the first one more (`,`, `:` or a closing bracket), so shorter text cannot pass the limit.
 */
export const JSON_VALUE_COUNT_MIN_CHARS = 2 * MAX_JSON_VALUES;


/** What the count found: nothing, or what is wrong with the text before any of it is parsed. */
export type JsonBudget =
  | { readonly kind: 'within' }
  | { readonly kind: 'too-many-values'; readonly reason: string }
  | { readonly kind: 'too-deep'; readonly reason: string };

const WITHIN: JsonBudget = { kind: 'within' };

const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Counts the values and the nesting of JSON `text` in one pass that builds nothing, and stops at the first limit
 * passed: a bomb costs a scan of its first ~100,000 values, not its parse. Every item of an array or object (an
 * element, or a member with its value) but the first follows a comma, so the values are 1 (the document) + the commas
 * + the non-empty arrays and objects, outside strings (a string is skipped to its closing quote: the first not escaped
 * by an odd number of backslashes). Exact for valid JSON; for invalid JSON a count of the same characters, and
 * `JSON.parse` says what is wrong. `maxValues` is for tests and measurements: the limit is {@link MAX_JSON_VALUES}.
 */
export function jsonBudget(text: string, maxValues = MAX_JSON_VALUES): JsonBudget {
  const end = text.length;
  let values = 1;
  let depth = 0;
  // The last character that was not white space opened an array or object: the next says whether it has items.
  let opened = false;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    // White space (space, tab, line breaks; the other control characters are no JSON, and parseManifestDocument
    // refuses them first).
    if (c <= SPACE) continue;
    if (opened) {
      opened = false;
      if (c !== CLOSE_BRACE && c !== CLOSE_BRACKET) {
        // Its first item, `depth` levels deep, where parseManifestDocument would refuse it.
        if (depth > MAX_NESTING_DEPTH) {
          return { kind: 'too-deep', reason: `invalid JSON at ${lineAndColumn(text, i)}: nested more than ${MAX_NESTING_DEPTH} levels deep` };
        }
        values += 1;
      }
    }
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) break;
    } else if (c === COMMA) {
      values += 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      opened = true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    }
    if (values > maxValues) {
      return {
        kind: 'too-many-values',
        reason: `its JSON has more than ${maxValues} values (objects, arrays and scalars; a pod has a few hundred): decoding it could take hundreds of megabytes of memory`,
      };
    }
  }
  return WITHIN;
}

/** The offset of the quote that closes the string opened at `open`, or -1 for none. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote >= 0) {
    let backslash = quote - 1;
    while (text.charCodeAt(backslash) === BACKSLASH) backslash -= 1;
    // An even number of backslashes escape each other, not the quote.
    if ((quote - 1 - backslash) % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}
