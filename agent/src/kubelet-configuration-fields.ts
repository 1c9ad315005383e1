/**
 * The top-level fields of `kubelet.config.k8s.io/v1beta1` KubeletConfiguration, as of Kubernetes 1.36
 * (k8s.io/kubelet/config/v1beta1 types.go, their JSON names). A field a `kind: KubeletConfiguration` file
 * gives that is in this list but not among podconfig's settings belongs to the kubelet and is ignored;
 * one that is in neither is a typo or a field of a newer kubelet (see config-file.ts).
 */
export const KUBELET_CONFIGURATION_FIELDS: ReadonlySet<string> = new Set([
  'enableServer', 'staticPodPath', 'podLogsDir', 'syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency',
  'staticPodURL', 'staticPodURLHeader', 'address', 'port', 'readOnlyPort', 'tlsCertFile', 'tlsPrivateKeyFile',
  'tlsCipherSuites', 'tlsCurvePreferences', 'tlsMinVersion', 'rotateCertificates', 'serverTLSBootstrap',
  'authentication', 'authorization', 'registryPullQPS', 'registryBurst', 'imagePullCredentialsVerificationPolicy',
  'preloadedImagesVerificationAllowlist', 'eventRecordQPS', 'eventBurst', 'enableDebuggingHandlers',
  'enableContentionProfiling', 'healthzPort', 'healthzBindAddress', 'oomScoreAdj', 'clusterDomain', 'clusterDNS',
  'streamingConnectionIdleTimeout', 'nodeStatusUpdateFrequency', 'nodeStatusReportFrequency',
  'nodeLeaseDurationSeconds', 'imageMinimumGCAge', 'imageMaximumGCAge', 'imageGCHighThresholdPercent',
  'imageGCLowThresholdPercent', 'volumeStatsAggPeriod', 'kubeletCgroups', 'systemCgroups', 'cgroupRoot',
  'cgroupsPerQOS', 'cgroupDriver', 'cpuManagerPolicy', 'singleProcessOOMKill', 'cpuManagerPolicyOptions',
  'cpuManagerReconcilePeriod', 'draManagerReconcilePeriod', 'memoryManagerPolicy', 'topologyManagerPolicy',
  'topologyManagerScope', 'topologyManagerPolicyOptions', 'qosReserved', 'runtimeRequestTimeout', 'hairpinMode',
  'maxPods', 'podCIDR', 'podPidsLimit', 'resolvConf', 'runOnce', 'cpuCFSQuota', 'cpuCFSQuotaPeriod',
  'nodeStatusMaxImages', 'maxOpenFiles', 'contentType', 'kubeAPIQPS', 'kubeAPIBurst', 'serializeImagePulls',
  'maxParallelImagePulls', 'evictionHard', 'evictionSoft', 'evictionSoftGracePeriod',
  'evictionPressureTransitionPeriod', 'evictionMaxPodGracePeriod', 'evictionMinimumReclaim',
  'mergeDefaultEvictionSettings', 'podsPerCore', 'enableControllerAttachDetach', 'protectKernelDefaults',
  'makeIPTablesUtilChains', 'iptablesMasqueradeBit', 'iptablesDropBit', 'featureGates', 'failSwapOn', 'memorySwap',
  'containerLogMaxSize', 'containerLogMaxFiles', 'containerLogMaxWorkers', 'containerLogMonitorInterval',
  'configMapAndSecretChangeDetectionStrategy', 'systemReserved', 'kubeReserved', 'reservedSystemCPUs',
  'showHiddenMetricsForVersion', 'systemReservedCgroup', 'kubeReservedCgroup', 'enforceNodeAllocatable',
  'allowedUnsafeSysctls', 'volumePluginDir', 'providerID', 'kernelMemcgNotification', 'logging',
  'enableSystemLogHandler', 'enableSystemLogQuery', 'shutdownGracePeriod', 'shutdownGracePeriodCriticalPods',
  'shutdownGracePeriodByPodPriority', 'crashLoopBackOff', 'reservedMemory', 'enableProfilingHandler',
  'enableDebugFlagsHandler', 'seccompDefault', 'memoryThrottlingFactor', 'memoryReservationPolicy',
  'registerWithTaints', 'registerNode', 'tracing', 'localStorageCapacityIsolation', 'containerRuntimeEndpoint',
  'imageServiceEndpoint', 'failCgroupV1', 'userNamespaces',
]);
