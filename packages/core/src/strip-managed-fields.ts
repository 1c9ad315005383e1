/** `metadata` as it may come off the wire, with the field this file drops. */
interface WireMetadata {
  readonly managedFields?: unknown;
}

/**
 * Drops `metadata.managedFields` (client-go's
 * `cache.TransformStripManagedFields()`, which kube-scheduler and kube-controller-manager set on their
 * informers): server-side apply bookkeeping that nobody downstream reads, yet often a third of a pod's JSON nodes.
 * The cache's `ListWatchOptions.transform` for that, and what kube-client's decoder applies to an
 * object it parses whole.
 *
 * When the field is present, returns a new object whose `metadata` is a copy without it (rest
 * destructuring, not `delete`, so the copy stays a fast-mode V8 object); every other value is shared,
 * and the input is not modified (it may be frozen). Otherwise returns `object` itself. Idempotent.
 */
export function stripManagedFields<T extends object>(object: T): T {
  const metadata = (object as { readonly metadata?: unknown }).metadata as WireMetadata | null | undefined;
  if (typeof metadata !== 'object' || metadata === null || !Object.hasOwn(metadata, 'managedFields')) return object;
  const { managedFields: _managedFields, ...rest } = metadata;
  return { ...object, metadata: rest };
}
