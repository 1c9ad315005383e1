export { loadClusterConfig } from './load-cluster-config.js';
export type { LoadClusterConfigOptions } from './load-cluster-config.js';
export type {
  ClusterConfig, ClusterTls, ClusterAuth, ClientCertificate, ExecPluginConfig, ExecApiVersion, ExecClusterInfo, Impersonation,
} from './cluster-config.js';
export { Secret } from './secret.js';
export { KubeClient, MAX_REDIRECTS, MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_RETRIES, MAX_RETRY_AFTER_SECONDS } from './kube-client.js';
export type { GetJSONOptions, KubeClientOptions, KubeRequestEvent, KubeRequestLatencyEvent, ListBytes, WatchJSONOptions } from './kube-client.js';
export { ScannedWatchEvent } from './scanned-watch-event.js';
export type { WatchHead } from './watch-head.js';
export type { DecodedSpec, SpecBytes, WatchDecodeOptions } from './watch-decode-options.js';
export { StatusError } from '@podconfig/core';
