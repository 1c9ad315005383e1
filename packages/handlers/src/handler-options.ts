import { ConfigInvalidError } from '@podconfig/core';
import { formatDuration, MAX_TIMER_MS, parseDuration } from '@podconfig/core';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A field value as HTTP has it (RFC 9110): visible ASCII, space and tab, and obs-text (Latin-1) — no control characters. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Reads and validates one handler's options (`NAME=ARG` gives `{ arg }`, a config file entry its
 * fields). Every failure is a {@link ConfigInvalidError} naming the handler and the option, and
 * never quoting a value (values can be secrets). Unknown options are rejected; `name` is
 * ignored, so the agent may pass a config entry as it is.
 */
export class HandlerOptions {
  readonly #handler: string;
  readonly #options: Readonly<Record<string, unknown>>;

  constructor(handler: string, options: Readonly<Record<string, unknown>>) {
    this.#handler = handler;
    this.#options = options;
  }

  /** Throws for any option but these (and `name`); returns `this`. */
  allow(...known: string[]): this {
    for (const key of Object.keys(this.#options)) {
      if (key !== 'name' && this.#options[key] !== undefined && !known.includes(key)) {
        throw this.error(key, key === 'arg' ? 'is not supported (this handler takes no NAME=ARG value)' : 'is unknown');
      }
    }
    return this;
  }

  error(key: string, problem: string): ConfigInvalidError {
    return new ConfigInvalidError(`handler "${this.#handler}": option "${key}" ${problem}`);
  }

  /** A non-empty string from `key`, or from `arg` (the `NAME=ARG` form) when `key` is absent. */
  requiredString(key: string, what: string): string {
    const fromKey = this.#options[key];
    const fromArg = this.#options['arg'];
    if (fromKey !== undefined && fromArg !== undefined) {
      throw this.error(key, `and NAME=ARG both give the ${what}: use one`);
    }
    const value = fromKey ?? fromArg;
    if (value === undefined) throw this.error(key, `is required (the ${what})`);
    if (typeof value !== 'string' || value === '') throw this.error(key, `must be a non-empty string (the ${what})`);
    return this.#noNul(key, value);
  }

  optionalString(key: string): string | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw this.error(key, 'must be a non-empty string');
    return this.#noNul(key, value);
  }

  stringArray(key: string): string[] | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
      throw this.error(key, 'must be a list of strings');
    }
    return this.#noNulList(key, value);
  }

  /**
   * Milliseconds, from a Go-style duration string (`30s`, `1m30s`). A bare number is refused, as the
   * kubelet refuses one for a `metav1.Duration`: `timeout: 30` would otherwise mean 30 ms.
   */
  duration(key: string, defaultMs: number): number {
    const value = this.#options[key];
    if (value === undefined) return defaultMs;
    if (typeof value === 'number') throw this.error(key, `must be a duration string like "30s", got the number ${String(value)}`);
    const ms = typeof value === 'string' ? parseDuration(value) : undefined;
    if (ms === undefined || !Number.isFinite(ms) || ms <= 0) throw this.error(key, 'must be a duration like 30s');
    // A longer timer would fire at once (Node.js's TimeoutOverflowWarning), not late.
    if (ms > MAX_TIMER_MS) throw this.error(key, `must be at most ${formatDuration(MAX_TIMER_MS)}, the longest timer Node.js sets`);
    return ms;
  }

  /** A map of environment variables; numbers and booleans become strings. */
  env(key: string): Record<string, string> | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) throw this.error(key, 'must be a map of variable names to values');
    const env: Record<string, string> = {};
    for (const [name, v] of Object.entries(value)) {
      if (!ENV_NAME.test(name)) throw this.error(key, 'has a variable name that is not [A-Za-z_][A-Za-z0-9_]*');
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        throw this.error(key, `must map "${name}" to a string`);
      }
      const text = String(v);
      if (text.includes('\0')) throw this.error(key, `has a NUL byte in the value of "${name}"`);
      env[name] = text;
    }
    return env;
  }

  /** A command: a string (the program) or a non-empty list (program, then arguments). */
  command(key: string): { command: string; args: string[] } | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && value !== '') return { command: this.#noNul(key, value), args: [] };
    if (Array.isArray(value) && value.length > 0 && value.every((v): v is string => typeof v === 'string') && value[0] !== '') {
      const [command = '', ...args] = this.#noNulList(key, value);
      return { command, args };
    }
    throw this.error(key, 'must be a command: a string or a list of strings (program first)');
  }

  /**
   * `value`, unless it holds a NUL byte: no program, argument or path can (spawn and fs would throw on every
   * call; a URL would carry it as %00), so it is refused at startup, as a NUL in an env value is. Not quoted.
   */
  #noNul(key: string, value: string): string {
    if (value.includes('\0')) throw this.error(key, 'has a NUL byte');
    return value;
  }

  #noNulList(key: string, values: readonly string[]): string[] {
    const index = values.findIndex((v) => v.includes('\0'));
    if (index !== -1) throw this.error(key, `has a NUL byte in entry ${index}`);
    return [...values];
  }

  /** Headers in order: a map (name → value or list of values) or a list of [name, value] pairs. */
  headers(key: string): [string, string][] | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    const pairs: [string, string][] = [];
    if (Array.isArray(value)) {
      value.forEach((entry: unknown, index) => {
        if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
          throw this.error(key, `entry ${index} must be a [name, value] pair of strings`);
        }
        pairs.push([entry[0], entry[1]]);
      });
    } else if (isPlainObject(value)) {
      for (const [name, v] of Object.entries(value)) {
        const values: unknown[] = Array.isArray(v) ? v : [v];
        for (const one of values) {
          if (typeof one !== 'string') throw this.error(key, `must map "${safeName(name)}" to a string or a list of strings`);
          pairs.push([name, one]);
        }
      }
    } else {
      throw this.error(key, 'must be a map of header names to values or a list of [name, value] pairs');
    }
    pairs.forEach(([name, v], index) => {
      if (!HEADER_NAME.test(name)) throw this.error(key, `entry ${index} has an invalid header name`);
      if (!HEADER_VALUE.test(v)) throw this.error(key, `entry ${index} ("${name}") has a value with a control character or a character outside Latin-1`);
    });
    return pairs;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeName(name: string): string {
  return HEADER_NAME.test(name) ? name : '<invalid name>';
}
