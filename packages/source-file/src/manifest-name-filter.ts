/** Why a directory entry is not read as a manifest; `undefined` means "read it". */
export type IgnoreReason = 'dot-file' | 'editor-artefact' | 'extension';

export interface ManifestNameFilterOptions {
  /** D2: `'default'` also skips editor and package-manager artefacts; `'none'` skips only dot-files. */
  readonly manifestFilter: 'default' | 'none';
  /** Optional allow-list of extensions (`.yaml` or `yaml`; compared case-insensitively). */
  readonly extensions: readonly string[] | undefined;
}

// Decision D2. Compared case-insensitively, so `web.yaml.BAK` is an artefact too.
const ARTEFACT_SUFFIXES = ['~', '.swp', '.swx', '.bak', '.orig', '.tmp', '.rpmnew', '.rpmsave'] as const;
const DPKG_ARTEFACT = /\.dpkg-[^./]+$/; // .dpkg-new, .dpkg-old, .dpkg-dist, .dpkg-tmp, …
const VIM_PROBE = '4913'; // vim writes and deletes this file to test that the directory is writable
// Beyond D2's list: JetBrains IDEs' safe-write temporaries (`web.yaml___jb_tmp___`, `___jb_old___`).
const JETBRAINS_ARTEFACT = /___jb_(tmp|old)___$/;
// nano's emergency save of an unsaved buffer when it is killed (`web.yaml.save`, then `.save.1`, …).
const NANO_EMERGENCY_SAVE = /\.save(\.\d+)?$/;

/**
 * True for names that editors and package managers leave behind (decision D2), and beyond D2's list
 * nano's emergency save `web.yaml.save` and emacs's auto-save file `#web.yaml#`: each holds an unsaved
 * buffer, and as `#` sorts before every letter, emacs's would replace the real manifest's pod under D1
 * (the first file wins) while the edit is in progress.
 */
export function isEditorArtefact(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === VIM_PROBE || ARTEFACT_SUFFIXES.some((s) => lower.endsWith(s)) || DPKG_ARTEFACT.test(lower)
    || (lower.length > 2 && lower.startsWith('#') && lower.endsWith('#')) || JETBRAINS_ARTEFACT.test(lower)
    || NANO_EMERGENCY_SAVE.test(lower);
}

/**
 * The name-based part of the directory listing: the kubelet's `[^.]*` glob (dot-files are never
 * read), plus D2's artefact deny-list and the optional extension allow-list.
 */
export function manifestNameFilter(options: ManifestNameFilterOptions): (name: string) => IgnoreReason | undefined {
  const allowed = options.extensions?.map((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase());
  return (name) => {
    if (name.startsWith('.')) return 'dot-file';
    if (options.manifestFilter === 'default' && isEditorArtefact(name)) return 'editor-artefact';
    if (allowed !== undefined) {
      const lower = name.toLowerCase();
      if (!allowed.some((ext) => lower.endsWith(ext) && lower.length > ext.length)) return 'extension';
    }
    return undefined;
  };
}
