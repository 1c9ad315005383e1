import { ConfigInvalidError, fileReadProblem, readBoundedFile } from '@podconfig/core';
import { GoYamlError, parseGoYaml } from '@podconfig/manifest';
import { CONFIG_FIELDS } from './settings.js';

/** The kinds a config file may name, each with the one apiVersion that goes with it. */
const KINDS = [['KubeletConfiguration', 'kubelet.config.k8s.io/v1beta1'], ['PodConfigAgentConfiguration', 'podconfig.io/v1alpha1']] as const;

export interface ConfigFile {
  readonly fields: Readonly<Record<string, unknown>>;
  /** KubeletConfiguration fields podconfig does not use (a real kubelet config file is accepted as is). */
  readonly ignoredFields: readonly string[];
}

/**
 * Reads a YAML (or JSON) config file. Field names are KubeletConfiguration's (`staticPodPath`,
 * `fileCheckFrequency`, …) plus podconfig's own (`handlers`, `statusAddress`, …).
 * `kind: KubeletConfiguration` files may carry other kubelet fields, which are ignored and
 * reported; any other unknown field is an error (a typo must not be silently ignored). A `kind`
 * needs its `apiVersion` and the other way round (`KubeletConfiguration` with
 * `kubelet.config.k8s.io/v1beta1`, `PodConfigAgentConfiguration` with `podconfig.io/v1alpha1`), as
 * the kubelet's decoder requires both; a file with neither is a PodConfigAgentConfiguration.
 */
export async function loadConfigFile(path: string, signal?: AbortSignal): Promise<ConfigFile> {
  let text: string;
  try {
    text = (await readBoundedFile(path, signal === undefined ? {} : { signal })).toString('utf8');
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    throw new ConfigInvalidError(`--config ${path}: cannot read (${fileReadProblem(err)})`, { cause: err });
  }
  // As the kubelet reads its config file (sigs.k8s.io/yaml: `enableServer: yes` is a boolean, `0644`
  // octal). Errors give the position, never the content: a config file holds header values (tokens).
  let doc: unknown;
  try {
    doc = parseGoYaml(text);
  } catch (err: unknown) {
    if (!(err instanceof GoYamlError)) throw err;
    throw new ConfigInvalidError(`--config ${path}: ${err.message}`, { cause: err });
  }
  if (doc === null) return { fields: {}, ignoredFields: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigInvalidError(`--config ${path}: must be a YAML mapping`);
  const { apiVersion, kind, ...fields } = doc as Record<string, unknown>;
  // As the kubelet's codec: a file that names its type names both kind and apiVersion, and they match.
  // A file with neither is podconfig's own (PodConfigAgentConfiguration).
  if (kind !== undefined || apiVersion !== undefined) {
    const pair = KINDS.find(([k]) => k === kind);
    if (pair === undefined) {
      throw new ConfigInvalidError(`--config ${path}: kind must be ${KINDS.map(([k]) => k).join(' or ')}, got ${kind === undefined ? 'none (apiVersion is set)' : JSON.stringify(kind)}`);
    }
    if (apiVersion !== pair[1]) {
      throw new ConfigInvalidError(`--config ${path}: kind ${pair[0]} needs apiVersion: ${pair[1]}, got ${apiVersion === undefined ? 'none' : JSON.stringify(apiVersion)}`);
    }
  }
  const isKubelet = kind === 'KubeletConfiguration';
  const unknown = Object.keys(fields).filter((f) => !CONFIG_FIELDS.has(f));
  if (unknown.length > 0 && !isKubelet) {
    throw new ConfigInvalidError(`--config ${path}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')}`);
  }
  const known: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (CONFIG_FIELDS.has(k)) known[k] = v;
  return { fields: known, ignoredFields: unknown };
}
