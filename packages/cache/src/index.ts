export type {
  WatchEventType,
  WatchEvent,
  ChangeEvent,
  BookmarkEvent,
  ErrorEvent,
  KubeObject,
} from './watch-event.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './watch-event.js';
export type { ListOptions, WatchOptions, ListResult, ListerWatcher } from './lister-watcher.js';
export type { ResourceClient } from './resource-client.js';
export { ListWatch } from './list-watch.js';
export type { ListWatchOptions } from './list-watch.js';
export { stripManagedFields } from './strip-managed-fields.js';
export type { ReflectorSink } from './reflector-sink.js';
export { Reflector } from './reflector.js';
export type { ReflectorOptions, ReflectorStatus } from './reflector.js';
export { UndeltaStore } from './undelta-store.js';
export type { UndeltaStoreOptions } from './undelta-store.js';
