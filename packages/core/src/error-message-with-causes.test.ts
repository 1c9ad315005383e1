import { describe, expect, it } from 'vitest';
import { errorMessageWithCauses } from './error-message-with-causes.js';
import { FileTooLargeError, fileReadProblem } from './read-bounded-file.js';

const errno = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe(errorMessageWithCauses.name, () => {
  it('appends each cause the message does not quote, once', () => {
    const root = errno("EACCES: permission denied, open '/s/.1.tmp'", 'EACCES');
    const wrapped = new Error('state-dir: cannot write /s/a.json for pod a', { cause: root });
    expect(errorMessageWithCauses(wrapped)).toBe("state-dir: cannot write /s/a.json for pod a: EACCES: permission denied, open '/s/.1.tmp'");
    const quoting = new Error(`cannot load module: ${root.message}`, { cause: root });
    expect(errorMessageWithCauses(quoting)).toBe(quoting.message);
  });

  it('leaves out a cause the message names by its code in parentheses (the wrapper names the file)', () => {
    const root = errno("ENOENT: no such file or directory, open '/k/kc'", 'ENOENT');
    const wrapped = new Error('kubeconfig /k/kc cannot be read (ENOENT)', { cause: root });
    expect(errorMessageWithCauses(wrapped)).toBe('kubeconfig /k/kc cannot be read (ENOENT)');
    // fileReadProblem's words: the code and the system's words, without the path the wrapper names.
    const worded = new Error(`kubeconfig /k/kc cannot be read (${fileReadProblem(root)})`, { cause: root });
    expect(errorMessageWithCauses(worded)).toBe('kubeconfig /k/kc cannot be read (ENOENT: no such file or directory)');
    // A code in the text that is not the cause's: the cause is still told.
    const other = new Error('retry (ENOENT) later', { cause: errno('EACCES: permission denied', 'EACCES') });
    expect(errorMessageWithCauses(other)).toBe('retry (ENOENT) later: EACCES: permission denied');
  });

  it('leaves out a "subject: problem" cause whose subject the message names and whose problem it quotes', () => {
    const tooLarge = new FileTooLargeError('/c/huge.yaml', 16);
    const wrapped = new Error(`--config /c/huge.yaml: cannot read (${fileReadProblem(tooLarge)})`, { cause: tooLarge });
    expect(errorMessageWithCauses(wrapped)).toBe('--config /c/huge.yaml: cannot read (larger than the limit of 16 bytes)');
    // Another subject: the cause is still told.
    const elsewhere = new Error('--config /c/a.yaml: cannot read (larger than the limit of 16 bytes)', { cause: tooLarge });
    expect(errorMessageWithCauses(elsewhere)).toBe(`${elsewhere.message}: /c/huge.yaml: larger than the limit of 16 bytes`);
  });

  it('says what a thrown value that is not an Error was', () => {
    expect(errorMessageWithCauses('busy')).toBe('busy');
    expect(errorMessageWithCauses(undefined)).toBe('undefined');
  });
});
