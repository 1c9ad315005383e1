/**
 * The `@podconfig/manifest/go-yaml` entry point: Go's YAML reading alone, for a reader of kubeconfigs
 * (kube-client) that has no manifest to decode. The package's main entry loads the decoding, the schema
 * and the validation with it, ~50 modules and ~20 ms of a process's start that an apiserver-only client
 * never uses.
 */
export { parseGoYaml, GoYamlError } from './go-yaml.js';
export type { GoYamlValue } from './go-yaml.js';
