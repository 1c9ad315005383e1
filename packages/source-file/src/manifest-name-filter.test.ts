import { describe, expect, it } from 'vitest';
import { isEditorArtefact, manifestNameFilter } from './manifest-name-filter.js';

describe('manifestNameFilter', () => {
  it('skips dot-files in every mode (the kubelet glob [^.]*)', () => {
    for (const manifestFilter of ['default', 'none'] as const) {
      const filter = manifestNameFilter({ manifestFilter, extensions: undefined });
      expect(filter('.hidden.yaml')).toBe('dot-file');
      expect(filter('..data')).toBe('dot-file');
      expect(filter('visible')).toBeUndefined();
    }
  });

  it('skips editor and package-manager artefacts by default only (D2)', () => {
    const byDefault = manifestNameFilter({ manifestFilter: 'default', extensions: undefined });
    const none = manifestNameFilter({ manifestFilter: 'none', extensions: undefined });
    for (const name of ['web.yaml~', 'web.yaml.swp', 'web.swx', 'web.yaml.bak', 'web.orig', 'web.tmp', 'web.yaml.dpkg-new',
      'web.yaml.dpkg-old', 'web.yaml.dpkg-dist', 'web.yaml.rpmnew', 'web.yaml.rpmsave', '4913', 'WEB.YAML.BAK',
      '#web.yaml#', 'web.yaml___jb_tmp___', 'web.yaml___jb_old___', 'web.yaml.save', 'web.yaml.save.1', 'WEB.YAML.SAVE.12']) {
      expect(byDefault(name), name).toBe('editor-artefact');
      expect(none(name), name).toBeUndefined();
    }
  });

  it('applies an extension allow-list, case-insensitively and with or without the dot', () => {
    const filter = manifestNameFilter({ manifestFilter: 'default', extensions: ['.yaml', 'json'] });
    expect(filter('a.yaml')).toBeUndefined();
    expect(filter('b.JSON')).toBeUndefined();
    expect(filter('c.yml')).toBe('extension');
    expect(filter('d')).toBe('extension');
  });
});

describe('isEditorArtefact', () => {
  it('does not match ordinary manifest names', () => {
    for (const name of ['web.yaml', 'web.json', 'kube-apiserver.yaml', 'backup', 'dpkg.yaml', '49130', 'web.yaml-bak',
      '#web.yaml', 'web#', '#', '##', 'save', 'web.save.yaml', 'web.yaml.saved', 'web.yaml.save.x']) {
      expect(isEditorArtefact(name), name).toBe(false);
    }
  });
});
