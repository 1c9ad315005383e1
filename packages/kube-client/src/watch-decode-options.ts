/** The SHA-256 digest (base64) and the length of a `spec`'s bytes in a watch line. */
export interface SpecBytes {
  readonly digest: string;
  readonly length: number;
}

/**
 * A `spec` decoded earlier, with the bytes it was decoded from (`bytes`); without them when its line
 * was parsed whole (an object's first sight), until the next change.
 */
export interface DecodedSpec {
  readonly bytes?: SpecBytes;
  readonly spec: unknown;
}

/**
 * How scanned change events decode their objects ({@link WatchJSONOptions}). Both skip bytes that a
 * plain `JSON.parse` of the line would turn into objects only for the caller to drop or to compare equal.
 */
export interface WatchDecodeOptions {
  /**
   * Leave `metadata.managedFields` out of decoded objects: its bytes are cut before parsing when the
   * line is walked (not parsed, so not checked either), else core's `stripManagedFields` drops it.
   */
  readonly dropManagedFields?: boolean;
  /**
   * The `spec`s decoded so far, by `namespace/name`, owned by the caller (who clears it when it lists
   * again). A change event whose `spec` bytes have the digest of the remembered one gets that same
   * object instead of a new parse of them: in a watch most changes are status changes, and an identical
   * `spec` object also makes the next comparison of the two versions instant. Decoding an ADDED or
   * MODIFIED event remembers its `spec`; decoding a DELETED one forgets it. An object not in the memo
   * (its first sight, usually an ADDED event or the initial list) is parsed whole while the memo holds
   * fewer than 1,000 objects, as `JSON.parse` is fastest for that; its next change is walked (after the
   * process's first 500 changes, parsed whole while the process warms up), its `spec` compared with the
   * remembered one (the same object is kept when equal) and its bytes' digest remembered from then on.
   */
  readonly specMemo?: Map<string, DecodedSpec>;
}
