import { lineAndColumn } from './line-and-column.js';
import { yaml } from './yaml-library.js';

/**
 * The nodes (scalars, collections, aliases) the first YAML document of a manifest may have. The yaml library
 * takes up to ~2.5 KB of memory a node while it parses (a 2 MB list of `- {}` took 900 MB), so the 10 MiB size
 * cap alone would let a manifest of tiny nodes take gigabytes. A pod has a few hundred nodes: this is room for a
 * PodList of 110 (the kubelet's `maxPods`) of ~450 nodes each, at most ~125 MB to parse.
 */
export const MAX_YAML_NODES = 50_000;

/** YAML from this many characters on is counted before it is parsed; under it, no shape reaches the node limit's memory. */
export const YAML_NODE_COUNT_MIN_CHARS = 64 * 1024;

/** Flow nesting (`[[[…`) deeper than this is no Pod (parseManifestDocument's own limit), and costs the parser a frame a level. */
const MAX_FLOW_DEPTH = 64;

/** What the count found wrong with a document, before any of it is parsed. */
export type YamlBudgetProblem =
  | { readonly kind: 'too-many-nodes'; readonly reason: string }
  | { readonly kind: 'too-deep'; readonly reason: string };

// The lexer's markers, none of them text of the source: a byte order mark, a document's start, a flow collection's
// end, and the start of a plain or block scalar's text.
const MARKERS = new Set(['\u{FEFF}', '\x02', '\x18', '\x1f']);
const SCALAR = '\x1f';

/**
 * Counts the nodes and the flow nesting of the first YAML document of `text` with the yaml library's lexer, which
 * keeps nothing but the token it hands out, and stops at the first limit passed: a bomb costs a lexer pass over
 * its first ~50,000 nodes, not its parse. Later documents are not counted (they are never parsed). Undefined
 * when the document is within both limits.
 */
export function yamlBudgetProblem(text: string): YamlBudgetProblem | undefined {
  let nodes = 0;
  let depth = 0;
  let offset = 0;
  for (const token of new yaml.Lexer().lex(text)) {
    if (MARKERS.has(token) && token !== SCALAR) continue;
    const first = token.charCodeAt(0);
    if (token === SCALAR || token === '-' || first === 0x22 /* " */ || first === 0x27 /* ' */ || first === 0x2a /* * */) {
      nodes += 1;
    } else if (token === '[' || token === '{') {
      nodes += 1;
      depth += 1;
      if (depth > MAX_FLOW_DEPTH) {
        return { kind: 'too-deep', reason: `invalid YAML at ${lineAndColumn(text, offset)}: nested more than ${MAX_FLOW_DEPTH} levels deep` };
      }
    } else if (token === ']' || token === '}') {
      depth -= 1;
    } else if ((token === '---' || token === '...') && nodes > 0) {
      return undefined;
    }
    if (nodes > MAX_YAML_NODES) {
      return {
        kind: 'too-many-nodes',
        reason: `its first YAML document has more than ${MAX_YAML_NODES} nodes (scalars and collections; a pod has a few hundred): parsing it could take gigabytes of memory`,
      };
    }
    if (token !== SCALAR) offset += token.length;
  }
  return undefined;
}
