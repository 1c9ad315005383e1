export { ApiserverPodSource } from './apiserver-pod-source.js';
export type { ApiserverPodSourceOptions, ApiserverReflectorTuning } from './apiserver-pod-source.js';
export { PodIntake } from './pod-intake.js';
export type { PodIntakeOptions } from './pod-intake.js';
