import type { Container } from '@podconfig/core';
import { configMapKeyProblems, dns1123SubdomainProblems, envVarNameProblems } from './name-rules.js';
import { ENV_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validate-downward-api.js';

type EnvVar = NonNullable<Container['env']>[number];
/** fileKeyRef (EnvFiles, 1.34) is newer than the pod types (kubernetes-types 1.30). */
type EnvVarSource = NonNullable<EnvVar['valueFrom']> & { fileKeyRef?: unknown };
type KeySelector = NonNullable<EnvVarSource['configMapKeyRef']>;

/**
 * ValidateEnv and validateEnvVarValueFrom: names (IsRelaxedEnvVarName) and exactly one value source, each
 * checked as the API checks it. Values are never shown.
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
    // Counted so that an env file source is not taken for none; its own rules are not checked here.
    if (source.fileKeyRef !== undefined) sources++;
    if (sources === 0) {
      errors.push(`${from}: Invalid value: must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or \`secretKeyRef\``);
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
