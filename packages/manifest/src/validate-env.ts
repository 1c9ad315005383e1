import type { Container, PodSpec } from '@podconfig/core';
import { containersWithPaths } from './containers-with-paths.js';
import { configMapKeyProblems, dns1123LabelProblems, dns1123SubdomainProblems, envVarNameProblems } from './name-rules.js';
import { ENV_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validate-downward-api.js';
import { validatePathNoBacksteps } from './validate-local-path.js';

type EnvVar = NonNullable<Container['env']>[number];
/** An env file's key (FileKeySelector: EnvFiles, 1.34) is newer than the pod types (kubernetes-types 1.30). */
interface FileKeySelector { volumeName?: string; path?: string; key?: string; optional?: boolean }
type EnvVarSource = NonNullable<EnvVar['valueFrom']> & { fileKeyRef?: FileKeySelector };
type KeySelector = NonNullable<EnvVarSource['configMapKeyRef']>;

/**
 * ValidateEnv and validateEnvVarValueFrom: names (IsRelaxedEnvVarName) and exactly one value source, each
 * checked as the API checks it; `fileKeyRef` (EnvFiles, beta and on by default since 1.35, so the API's
 * AllowEnvFilesValidation holds and the message for no source names it) included. Values are never shown.
 */
export function validateEnv(env: readonly EnvVar[], at: string, errors: string[]): void {
  env.forEach((variable, i) => {
    const path = `${at}[${i}]`;
    const name = (variable.name as string | undefined) ?? '';
    if (name === '') errors.push(`${path}.name: Required value`);
    else for (const p of envVarNameProblems(name)) errors.push(`${path}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
    const source = variable.valueFrom as EnvVarSource | undefined;
    if (source === undefined) return;
    const from = `${path}.valueFrom`;
    let sources = 0;
    if (source.fieldRef !== undefined) {
      sources++;
      validateObjectFieldSelector(source.fieldRef, ENV_FIELD_PATHS, `${from}.fieldRef`, errors);
    }
    if (source.resourceFieldRef !== undefined) {
      sources++;
      validateResourceFieldSelector(source.resourceFieldRef, false, `${from}.resourceFieldRef`, errors);
    }
    if (source.configMapKeyRef !== undefined) {
      sources++;
      validateKeySelector(source.configMapKeyRef, `${from}.configMapKeyRef`, errors);
    }
    if (source.secretKeyRef !== undefined) {
      sources++;
      validateKeySelector(source.secretKeyRef, `${from}.secretKeyRef`, errors);
    }
    if (source.fileKeyRef !== undefined) {
      sources++;
      validateFileKeySelector(source.fileKeyRef, `${from}.fileKeyRef`, errors);
    }
    if (sources === 0) {
      errors.push(`${from}: Invalid value: must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\`, \`secretKeyRef\` or \`fileKeyRef\``);
    } else if (variable.value) {
      errors.push(`${from}: Invalid value: may not be specified when \`value\` is not empty`);
    } else if (sources > 1) {
      errors.push(`${from}: Invalid value: may not have more than one field specified at a time`);
    }
  });
}

/** ValidateEnvFrom: a prefix that makes valid names, and exactly one of configMapRef and secretRef. */
export function validateEnvFrom(envFrom: NonNullable<Container['envFrom']>, at: string, errors: string[]): void {
  envFrom.forEach((source, i) => {
    const path = `${at}[${i}]`;
    const prefix = source.prefix ?? '';
    if (prefix !== '') for (const p of envVarNameProblems(prefix)) errors.push(`${path}.prefix: Invalid value: ${JSON.stringify(prefix)}: ${p}`);
    let sources = 0;
    for (const field of ['configMapRef', 'secretRef'] as const) {
      const ref = source[field];
      if (ref === undefined) continue;
      sources++;
      const name = ref.name ?? '';
      if (name === '') errors.push(`${path}.${field}.name: Required value`);
      // A name used as a prefix may end in '-' (NameIsDNSSubdomain with prefix: maskTrailingDash, which replaces the
      // last two characters, not one: `a-.-` passes as `a-a`).
      else for (const p of dns1123SubdomainProblems(name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name)) errors.push(`${path}.${field}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
    }
    // The API reports these at the list, not the item.
    if (sources === 0) errors.push(`${at}: Invalid value: must specify one of: \`configMapRef\` or \`secretRef\``);
    else if (sources > 1) errors.push(`${at}: Invalid value: may not have more than one field specified at a time`);
  });
}

/** validateConfigMapKeySelector / validateSecretKeySelector: an object name and a valid key. */
function validateKeySelector(selector: KeySelector, at: string, errors: string[]): void {
  const name = selector.name ?? '';
  for (const p of dns1123SubdomainProblems(name)) errors.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  const key = (selector.key as string | undefined) ?? '';
  if (key === '') errors.push(`${at}.key: Required value`);
  else for (const p of configMapKeyProblems(key)) errors.push(`${at}.key: Invalid value: ${JSON.stringify(key)}: ${p}`);
}

/**
 * validateFileKeySelector: a key that is an environment variable name (IsRelaxedEnvVarName), the name of a
 * volume (a DNS-1123 label) and a path in it without `..`. The key is a name, not a value, so it is shown.
 */
function validateFileKeySelector(selector: FileKeySelector, at: string, errors: string[]): void {
  const key = selector.key ?? '';
  if (key === '') errors.push(`${at}.key: Required value`);
  else for (const p of envVarNameProblems(key)) errors.push(`${at}.key: Invalid value: ${JSON.stringify(key)}: ${p}`);
  const volumeName = selector.volumeName ?? '';
  if (volumeName === '') errors.push(`${at}.volumeName: Required value`);
  else for (const p of dns1123LabelProblems(volumeName)) errors.push(`${at}.volumeName: Invalid value: ${JSON.stringify(volumeName)}: ${p}`);
  const path = selector.path ?? '';
  if (path === '') errors.push(`${at}.path: Required value`);
  else validatePathNoBacksteps(path, `${at}.path`, errors);
}

/**
 * validateFileKeyRefVolumes, the last check of ValidatePodSpec: the volume an env file is read from is one of
 * the pod's volumes, and an emptyDir (an init container writes the file, the container reads it). Containers in
 * the API's order: init, regular, ephemeral.
 */
export function validateFileKeyRefVolumes(spec: PodSpec, errors: string[]): void {
  const volumes = new Map((spec.volumes ?? []).map((v) => [(v.name as string | undefined) ?? '', v]));
  for (const [container, at] of containersWithPaths(spec)) {
    (container.env ?? []).forEach((variable, j) => {
      const ref = (variable.valueFrom as EnvVarSource | undefined)?.fileKeyRef;
      if (ref === undefined) return;
      const name = ref.volumeName ?? '';
      const path = `${at}.env[${j}].valueFrom.fileKeyRef.volumeName`;
      const volume = volumes.get(name);
      if (volume === undefined) errors.push(`${path}: Not found: ${JSON.stringify(name)}`);
      else if (volume.emptyDir === undefined) errors.push(`${path}: Invalid value: ${JSON.stringify(name)}: referenced volume must be of type emptyDir`);
    });
  }
}
