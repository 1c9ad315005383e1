export type { Pod, PodList, PodSpec, PodStatus, Container, Toleration, Volume, ObjectMeta } from './pod.js';
export { podKey, podFullName, podRef, podUid, isStaticPod, isMirrorPod } from './pod.js';
export { ANNOTATIONS, LOCAL_ANNOTATIONS } from './annotations.js';
export type { SourceName } from './source-name.js';
export { FILE_SOURCE, HTTP_SOURCE, API_SOURCE, ALL_SOURCES, isSourceName } from './source-name.js';
export { PodSnapshot } from './pod-snapshot.js';
export type { PodSetChanges } from './pod-snapshot.js';
export type { PodOperation, PodSetUpdate, PodUpdate } from './pod-update.js';
export { POD_OPERATION_CODES, podSetUpdate } from './pod-update.js';
export type { PodSource, SourceStatus, StatusReporter } from './pod-source.js';
export { reportsStatus } from './pod-source.js';
export type {
  SyncHandler, SyncPodType, SyncPodRequest, KillPodReason, KillPodRequest, ActualPod, PodLister,
  StartableHandler, ClosableHandler, RuntimeHealthReporter, SyncHandlerContext, SyncHandlerFactory,
} from './sync-handler.js';
export { isPodLister, isStartable, isClosable, reportsRuntimeHealth } from './sync-handler.js';
export { PodConfigError, SourceUnavailableError, ConfigInvalidError, StatusError, errorMessage } from './errors.js';
export { checkNodeName, isNodeName } from './node-name.js';
export { REDIRECT_STATUSES, redirectTarget } from './redirect-target.js';
export type { PodConfigErrorCode, StatusCause } from './errors.js';
export { LatestByKey, type LatestByKeyOptions } from './latest-by-key.js';
export { PullIterator } from './pull-iterator.js';
export { relay, type RelayParts } from './relay.js';
export { forEachValue } from './for-each-value.js';
export { coalescePodSets } from './coalesce-pod-sets.js';
export type { Clock } from './clock.js';
export { MAX_TIMER_MS, setLongTimeout, systemClock, type LongTimeout } from './clock.js';
export type { Backoff, ExponentialBackoffOptions } from './backoff.js';
export { exponentialBackoff } from './backoff.js';
export type { LinkedSignal } from './linked.js';
export { linked, withTimeout } from './linked.js';
export { raceSignal } from './race-signal.js';
export { ConnectingSockets } from './connecting-sockets.js';
export { safeUrl } from './safe-url.js';
export { EnvironmentProxy } from './environment-proxy.js';
export {
  HttpProxyError, basicAuthFromUserinfo, httpProxyConnector, proxySocketConnector,
  type ConnectCallback, type ConnectTarget, type HttpProxyConnectorOptions, type SocketConnector,
} from './http-proxy-connector.js';
export { Socks5Error, isSocks5Proxy, socks5Connector, type Socks5ConnectorOptions, type Socks5SocketConnector } from './socks5-connector.js';
export { LegacyCommonNameError, checkServerIdentity, withGoServerVerification } from './go-server-verification.js';
export { toAbsoluteForm, type AbsoluteFormRequest } from './absolute-form.js';
export { FileTooLargeError, MAX_CONFIG_FILE_BYTES, fileReadProblem, readBoundedFile, type ReadBoundedFileOptions } from './read-bounded-file.js';
export { runCommand, type CommandResult, type RunCommandOptions } from './run-command.js';
export { processGroupKillsPending, processGroupKillsSettled } from './owed-process-groups.js';
export { copyWith } from './copy-with.js';
export { deepFreeze, deepFreezeParsed } from './deep-freeze.js';
export { jsonEqual } from './json-equal.js';
export { stripManagedFields } from './strip-managed-fields.js';
export { parseDuration, formatDuration } from './duration.js';
export { callHook } from './call-hook.js';
export { WARN_FAILURES, WARN_REMINDER_MS } from './failure-warnings.js';
export { isLoopbackIp } from './loopback.js';
export { tlsFailure, tlsFailureText, trustedCas, type CaRuntime } from './tls-failure.js';
export type { TlsFailure } from './tls-failure.js';
export { errorMessageWithCauses } from './error-message-with-causes.js';
export { serializeErrorWith } from './serialize-error.js';
export type { ErrSerializer } from './serialize-error.js';
export { closestName } from './closest-name.js';
export { HANDLER_METHODS, handlerShapeProblem, isSyncHandler, strayHandlerMethods } from './handler-shape.js';
export type { StrayHandlerMethod } from './handler-shape.js';
