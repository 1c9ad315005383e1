import type { Container } from '@podconfig/core';
import { httpHeaderNameProblems, portNameProblems } from './name-rules.js';
import { oneOf } from './validate-one-of.js';

type Probe = NonNullable<Container['livenessProbe']>;
type LifecycleHandler = NonNullable<NonNullable<Container['lifecycle']>['preStop']>;
type HttpGetAction = NonNullable<Probe['httpGet']>;
/** What a probe or a lifecycle hook does: the API's commonHandler, the union of both kinds' actions. */
type Handler = Pick<Probe, 'exec' | 'httpGet' | 'tcpSocket' | 'grpc'> & Pick<LifecycleHandler, 'sleep'>;

/** The API's order: the first action found counts, each later one is refused at its own path. */
const ACTIONS = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'] as const;
/** supportedHTTPSchemes, sorted as the API lists them. */
const HTTP_SCHEMES = ['HTTP', 'HTTPS'];
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

/**
 * validateHandler: exactly one action, each checked as the API checks it. `gracePeriod` is the pod's
 * terminationGracePeriodSeconds, which bounds a sleep. Commands and header values are never shown.
 */
export function validateHandler(handler: Handler, gracePeriod: number | undefined, at: string, errors: string[]): void {
  let found = false;
  for (const action of ACTIONS) {
    if (handler[action] === undefined) continue;
    if (found) {
      errors.push(`${at}.${action}: Forbidden: may not specify more than 1 handler type`);
      continue;
    }
    found = true;
    validateAction(handler, action, gracePeriod, `${at}.${action}`, errors);
  }
  if (!found) errors.push(`${at}: Required value: must specify a handler type`);
}

function validateAction(handler: Handler, action: typeof ACTIONS[number], gracePeriod: number | undefined, at: string, errors: string[]): void {
  switch (action) {
    case 'exec':
      // validateExecAction: the command itself is never shown.
      if ((handler.exec?.command ?? []).length === 0) errors.push(`${at}.command: Required value`);
      break;
    case 'httpGet':
      if (handler.httpGet !== undefined) validateHttpGetAction(handler.httpGet, at, errors);
      break;
    case 'tcpSocket':
      validatePortNumOrName(handler.tcpSocket?.port, `${at}.port`, errors);
      break;
    case 'grpc':
      validatePortNumOrName(handler.grpc?.port, `${at}.port`, errors);
      break;
    case 'sleep': {
      // validateSleepAction with PodLifecycleSleepActionAllowZero (GA and locked on since 1.34): 0 is a valid sleep.
      // Left out, `seconds` is Go's zero value.
      const seconds = handler.sleep?.seconds ?? 0;
      if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
        errors.push(`${at}: Invalid value: ${seconds}: must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`);
      }
      break;
    }
  }
}

/** validateHTTPGetAction: a path (the API defaults fill `/`), a port, HTTP or HTTPS, valid header names. */
function validateHttpGetAction(action: HttpGetAction, at: string, errors: string[]): void {
  if (action.path === '') errors.push(`${at}.path: Required value`);
  validatePortNumOrName(action.port, `${at}.port`, errors);
  // Left out, the scheme is Go's zero value "" (the API defaults fill HTTP first).
  oneOf(action.scheme ?? '', HTTP_SCHEMES, `${at}.scheme`, errors);
  (action.httpHeaders ?? []).forEach((header, i) => {
    // The API reports a bad name at the list; the item is named here. A header's value is never shown.
    const name = (header.name as string | undefined) ?? '';
    for (const p of httpHeaderNameProblems(name)) errors.push(`${at}.httpHeaders[${i}].name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  });
}

/**
 * ValidatePortNumOrName: a number 1-65535 or an IANA service name. A name need not match one of the
 * container's ports: the API does not check it (the kubelet resolves it when it probes). A port left out is
 * Go's zero value, the number 0.
 */
export function validatePortNumOrName(port: number | string | undefined, at: string, errors: string[]): void {
  const value = port ?? 0;
  if (typeof value === 'number') {
    if (!(value >= 1 && value <= 65535)) errors.push(`${at}: Invalid value: ${value}: ${PORT_RANGE}`);
    return;
  }
  for (const problem of portNameProblems(value)) errors.push(`${at}: Invalid value: ${JSON.stringify(value)}: ${problem}`);
}
