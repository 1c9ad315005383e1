import { readFile } from 'node:fs/promises';
import { ConfigInvalidError, errorMessage } from '@podconfig/core';
import { GoYamlError, parseGoYaml } from '@podconfig/manifest';
import { CONFIG_FIELDS } from './settings.js';

const KUBELET_API = 'kubelet.config.k8s.io/v1beta1';
const PODCONFIG_API = 'podconfig.io/v1alpha1';

export interface ConfigFile {
  readonly fields: Readonly<Record<string, unknown>>;
  /** KubeletConfiguration fields podconfig does not use (a real kubelet config file is accepted as is). */
  readonly ignoredFields: readonly string[];
}

/**
 * Reads a YAML (or JSON) config file. Field names are KubeletConfiguration's (`staticPodPath`,
 * `fileCheckFrequency`, …) plus podconfig's own (`handlers`, `statusAddress`, …).
 * `kind: KubeletConfiguration` files may carry other kubelet fields, which are ignored and
 * reported; any other unknown field is an error (a typo must not be silently ignored).
 */
export async function loadConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err: unknown) {
    throw new ConfigInvalidError(`--config ${path}: cannot read: ${errorMessage(err)}`, { cause: err });
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
  const isKubelet = kind === 'KubeletConfiguration';
  if (kind !== undefined && !isKubelet && kind !== 'PodConfigAgentConfiguration') {
    throw new ConfigInvalidError(`--config ${path}: kind must be KubeletConfiguration or PodConfigAgentConfiguration, got ${JSON.stringify(kind)}`);
  }
  if (apiVersion !== undefined && apiVersion !== KUBELET_API && apiVersion !== PODCONFIG_API) {
    throw new ConfigInvalidError(`--config ${path}: apiVersion must be ${KUBELET_API} or ${PODCONFIG_API}, got ${JSON.stringify(apiVersion)}`);
  }
  const unknown = Object.keys(fields).filter((f) => !CONFIG_FIELDS.has(f));
  if (unknown.length > 0 && !isKubelet) {
    throw new ConfigInvalidError(`--config ${path}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')}`);
  }
  const known: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (CONFIG_FIELDS.has(k)) known[k] = v;
  return { fields: known, ignoredFields: unknown };
}
