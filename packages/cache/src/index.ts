export type {
  WatchEventType,
  WatchEvent,
  ChangeEvent,
  BookmarkEvent,
  ErrorEvent,
  UnknownEvent,
  KubeObject,
} from './watch-event.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './watch-event.js';
export type { ListOptions, WatchOptions, ListResult, ListerWatcher, BufferedIterator } from './lister-watcher.js';
export type { GetJSONOptions, ListBytes, ResourceClient } from './resource-client.js';
export { ListWatch } from './list-watch.js';
export type { ListWatchOptions } from './list-watch.js';
// Moved to core (kube-client's decoder uses it too); still exported here, where ListWatch users look for it.
export { stripManagedFields } from '@podconfig/core';
export type { ReflectorSink } from './reflector-sink.js';
export { Reflector } from './reflector.js';
export type { ReflectorOptions, ReflectorStatus } from './reflector.js';
export { UndeltaStore } from './undelta-store.js';
export type { UndeltaStoreOptions } from './undelta-store.js';
