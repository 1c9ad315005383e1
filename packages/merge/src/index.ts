export { mergeSources } from './merge-sources.js';
export { PodMerger } from './pod-merger.js';
export type { PodMergerOptions, PodEvent, MergerStats, SourceMergeStats } from './pod-merger.js';
export { podConfig } from './pod-config.js';
export type { PodConfigOptions } from './pod-config.js';
export { formatSeenTimestamp } from './format-seen-timestamp.js';
