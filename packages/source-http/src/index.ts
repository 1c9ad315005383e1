export { HttpPodSource } from './http-pod-source.js';
export type { HttpPodSourceOptions, HttpReadiness } from './http-pod-source.js';
export { checkHeader, parseManifestUrlHeaders } from './parse-manifest-url-headers.js';
