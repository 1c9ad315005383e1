import { lineAndColumn } from './line-and-column.js';
import { yaml } from './yaml-library.js';
import { MAX_NESTING_DEPTH } from './max-nesting-depth.js';

/**
 * The YAML tokens (scalars, indicators such as `-`, `:`, `?`, `,`, brackets, anchors, tags and aliases; not white
 * space or comments) the first document of a manifest may have. The yaml library takes up to ~2.5 KB of memory a
 * node while it parses (a 2 MB list of `- {}` took 900 MB), and stray indicators cost it as much (10 MB of `?` lines
 * took 3 GB, commas in a flow sequence an error object each), so the 10 MiB size cap alone would let a manifest of
 * tiny tokens take gigabytes. A pod has a few hundred (the kubeadm fixtures 187–324): this is room for a PodList of
 * 110 (the kubelet's `maxPods`) such pods.
 */
export const MAX_YAML_TOKENS = 50_000;

/**
 * YAML from this many characters on is counted before it is parsed; under it, no shape costs the parser more than
 * ~40 MB. A static pod manifest is a few KB.
 */
export const YAML_TOKEN_COUNT_MIN_CHARS = 16 * 1024;


/** What the count found: the first document's end, or what is wrong with it before any of it is parsed. */
export type YamlBudget =
  | { readonly kind: 'within'; readonly firstDocumentEnd: number }
  | { readonly kind: 'too-many-tokens'; readonly reason: string }
  | { readonly kind: 'too-deep'; readonly reason: string };

// The lexer's markers, none of them text of the source: a byte order mark, a document's start, a flow collection's
// end, and the start of a plain or block scalar's text.
const MARKERS = new Set(['\u{FEFF}', '\x02', '\x18', '\x1f']);

/**
 * Counts the tokens and the flow nesting of the first YAML document of `text` with the yaml library's lexer, which
 * keeps nothing but the token it hands out, and stops at the first limit passed: a bomb costs a lexer pass over its
 * first ~50,000 tokens, not its parse. Within both limits, says where the first document ends (at the next `---`
 * or `...` marker, else the text's end): only that much is parsed, as go-yaml reads only the first document, and the
 * parser would build every later one before it hands out the first.
 */
export function yamlBudget(text: string): YamlBudget {
  let tokens = 0;
  let depth = 0;
  let offset = 0;
  for (const token of new yaml.Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    const first = token.charCodeAt(0);
    // White space (a block scalar's text starts with its indentation: it is one token, counted by its `|` or `>`),
    // line breaks and comments.
    const counted = first !== 0x20 && first !== 0x09 && first !== 0x0a && first !== 0x0d && first !== 0x23;
    if (token === '---' || token === '...') {
      if (tokens > 0) return { kind: 'within', firstDocumentEnd: offset };
      offset += token.length;
      continue;
    }
    if (counted) tokens += 1;
    if (token === '[' || token === '{') {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) {
        return { kind: 'too-deep', reason: `invalid YAML at ${lineAndColumn(text, offset)}: nested more than ${MAX_NESTING_DEPTH} levels deep` };
      }
    } else if (token === ']' || token === '}') {
      depth -= 1;
    }
    if (tokens > MAX_YAML_TOKENS) {
      return {
        kind: 'too-many-tokens',
        reason: `its first YAML document has more than ${MAX_YAML_TOKENS} tokens (scalars, indicators and brackets; a pod has a few hundred): parsing it could take gigabytes of memory`,
      };
    }
    offset += token.length;
  }
  return { kind: 'within', firstDocumentEnd: text.length };
}
