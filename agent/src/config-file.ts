import { closestName, ConfigInvalidError, fileReadProblem, readBoundedFile } from '@podconfig/core';
import { GoYamlError, parseGoYaml } from '@podconfig/manifest';
import { KUBELET_CONFIGURATION_FIELDS } from './kubelet-configuration-fields.js';
import { CONFIG_FIELDS } from './settings.js';

/** The kinds a config file may name, each with the one apiVersion that goes with it. */
const KINDS = [['KubeletConfiguration', 'kubelet.config.k8s.io/v1beta1'], ['PodConfigAgentConfiguration', 'podconfig.io/v1alpha1']] as const;

export interface ConfigFile {
  readonly fields: Readonly<Record<string, unknown>>;
  /** KubeletConfiguration fields podconfig does not use (a real kubelet config file is accepted as is). */
  readonly ignoredFields: readonly string[];
  /**
   * Fields of a `kind: KubeletConfiguration` file that KubeletConfiguration v1beta1 has not (as of
   * Kubernetes 1.36), each with the field it may misspell: a newer kubelet's, or a typo of a field
   * podconfig does not use. Ignored, and worth a warning.
   */
  readonly unknownFields: readonly UnknownField[];
}

export interface UnknownField {
  readonly field: string;
  readonly didYouMean?: string;
}

/**
 * Reads a YAML (or JSON) config file. Field names are KubeletConfiguration's (`staticPodPath`,
 * `fileCheckFrequency`, …) plus podconfig's own (`handlers`, `statusAddress`, …).
 * `kind: KubeletConfiguration` files may carry the kubelet's other fields, which are ignored and
 * reported; a field the kubelet has not either is reported as unknown, and is an error when it looks
 * like a misspelt field podconfig uses (`staticPodPth`: running without the file source would kill its
 * pods). In a podconfig file any unknown field is an error. An empty file is an error, as for the
 * kubelet: a truncated file must not start the agent without its sources. A `kind` needs its
 * `apiVersion` and the other way round (`KubeletConfiguration` with `kubelet.config.k8s.io/v1beta1`,
 * `PodConfigAgentConfiguration` with `podconfig.io/v1alpha1`), as the kubelet's decoder requires both;
 * a file with neither is a PodConfigAgentConfiguration.
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
  // The kubelet: `kubelet config file "…" was empty`. Comments only count as empty too.
  if (doc === null) throw new ConfigInvalidError(`--config ${path}: the file is empty (it holds no settings; leave --config out to run without one)`);
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
  const ignoredFields: string[] = [];
  const unknownFields: UnknownField[] = [];
  const misspelt: string[] = [];
  const known: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (CONFIG_FIELDS.has(field)) known[field] = value;
    else if (isKubelet && KUBELET_CONFIGURATION_FIELDS.has(field)) ignoredFields.push(field);
    else {
      const didYouMean = closestName(field, isKubelet ? [...CONFIG_FIELDS, ...KUBELET_CONFIGURATION_FIELDS] : CONFIG_FIELDS);
      if (!isKubelet || (didYouMean !== undefined && CONFIG_FIELDS.has(didYouMean))) {
        misspelt.push(`"${field}"${didYouMean === undefined ? '' : ` (did you mean "${didYouMean}"?)`}`);
      } else unknownFields.push(didYouMean === undefined ? { field } : { field, didYouMean });
    }
  }
  if (misspelt.length > 0) throw new ConfigInvalidError(`--config ${path}: unknown field${misspelt.length > 1 ? 's' : ''} ${misspelt.join(', ')}`);
  return { fields: known, ignoredFields, unknownFields };
}
