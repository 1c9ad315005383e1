import { Command, CommanderError, Option } from 'commander';
import { SETTINGS, helpDefault } from './settings.js';

export interface CommandLine {
  /** Raw flag values by flag name (without dashes; an alias's under its setting's flag); repeatable flags give string[]. */
  readonly flags: Readonly<Record<string, unknown>>;
  /** The name as typed, by the setting's flag, where an alias was used (`node-name` → `hostname-override`). */
  readonly flagNames: Readonly<Record<string, string>>;
  readonly configFile: string | undefined;
}

export type CommandLineResult =
  | { readonly kind: 'run'; readonly commandLine: CommandLine }
  | { readonly kind: 'exit'; readonly code: number; readonly output: string };

/**
 * Parses kubelet-style flags (`--flag value` or `--flag=value`). Help, version and usage
 * errors come back as `exit` results so the caller decides how to print and exit; a usage error's
 * output is the agent's one stderr line for invalid input, `podconfig-agent: <message>`.
 */
export function parseCommandLine(argv: readonly string[], version: string): CommandLineResult {
  let output = '';
  const program = new AgentCommand('podconfig-agent')
    .description('kubelet-style pod config source agent: static manifests, a manifest URL and the apiserver → sync handlers')
    // The kubelet's `--version version[=true]`: alone or `=true` prints the version, `=raw` the build details.
    .addOption(new Option('--version [WHEN]', 'print the version and exit: --version (or =true), --version=raw for the details; =false runs'))
    .helpOption('-h, --help', 'show this help')
    .option('--config <FILE>', 'config file: YAML with KubeletConfiguration field names (flags override it)')
    // klog's verbosity, for kubelet command lines carried over (a systemd drop-in's `--v=2`).
    .addOption(new Option('-v, --v <LEVEL>', `log verbosity as the kubelet's klog has it: ${VERBOSITY_HELP}; --log-level sets the level by name`))
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: (s) => { output += s; }, writeErr: (s) => { output += s; } });
  const attribute = new Map<string, { flag: string; typed: string }>();
  for (const s of SETTINGS) {
    // A bool flag alone means true, as Go's bool flags do (`--watch-list`); `--watch-list=false` turns it off.
    const value = s.isBool === true ? `[${s.arg}]` : `<${s.arg}>`;
    // The default in the help text, as pflag prints it (`(default 20s)`); not as commander's default
    // value, which would count as given and override the config file.
    const shown = helpDefault(s);
    const opt = new Option(`--${s.flag} ${value}`, shown === undefined ? s.help : `${s.help} (default ${shown})`);
    if (s.repeatable === true) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    program.addOption(opt);
    attribute.set(opt.attributeName(), { flag: s.flag, typed: s.flag });
    for (const alias of s.aliases ?? []) {
      const a = new Option(`--${alias} ${value}`, `alias of --${s.flag}`);
      program.addOption(a);
      attribute.set(a.attributeName(), { flag: s.flag, typed: alias });
    }
  }
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err: unknown) {
    if (err instanceof CommanderError) {
      return { kind: 'exit', code: err.exitCode, output: err.exitCode === 0 ? output : usageErrorLine(output) };
    }
    throw err;
  }
  const opts = program.opts<Record<string, unknown>>();
  const printed = versionOutput(opts['version'], version);
  if (printed !== undefined) return printed;
  const flags: Record<string, unknown> = {};
  const flagNames: Record<string, string> = {};
  const verbosity = opts['v'];
  if (verbosity !== undefined) {
    if (opts['logLevel'] !== undefined) return usageError('--v and --log-level both set the log level: give one of them');
    // pflag reads `-v=4` as the shorthand and its value; commander takes "=4" for the value.
    const level = typeof verbosity === 'string' ? logLevelOfVerbosity(verbosity.replace(/^=/, '')) : undefined;
    if (level === undefined) return usageError(`--v: invalid argument ${JSON.stringify(verbosity)}: a verbosity is a whole number >= 0`);
    flags['log-level'] = level;
    flagNames['log-level'] = 'v';
  }
  for (const [attr, value] of Object.entries(opts)) {
    const name = attribute.get(attr);
    if (name === undefined || value === undefined) continue;
    const given = value === true ? 'true' : value;
    // A flag and its alias with two values: which one the user meant is a guess (the kubelet has only the alias).
    if (flags[name.flag] !== undefined && JSON.stringify(flags[name.flag]) !== JSON.stringify(given)) {
      return usageError(`--${flagNames[name.flag] ?? name.flag} and --${name.typed} give two values for one setting: give one of them`);
    }
    flags[name.flag] = given;
    if (name.typed !== name.flag) flagNames[name.flag] = name.typed;
    else delete flagNames[name.flag];
  }
  // The kubelet reads a config file only when --config is not empty: `--config=` is no config file.
  const configFile = typeof opts['config'] === 'string' && opts['config'] !== '' ? opts['config'] : undefined;
  return { kind: 'run', commandLine: { flags, flagNames, configFile } };
}

/**
 * Commander, but an unknown option is named without what follows its first `=`: a misspelt
 * `--manifest-url-headr=X-Token:SECRET` must not print the secret to stderr (and a journal). Named so, it gets
 * commander's "Did you mean" hint too, which the value kept from matching.
 */
class AgentCommand extends Command {
  /** Commander 14 calls this (a method it marks private) with the argument as typed. */
  unknownOption(flag: string): never {
    const eq = flag.indexOf('=');
    const named = eq < 0 ? flag : flag.slice(0, eq);
    return (Command.prototype as unknown as { unknownOption(this: Command, flag: string): never }).unknownOption.call(this, named);
  }
}

/** klog's verbosity levels as the Kubernetes logging guidelines use them: 4 is debug, 5 and above trace. */
const VERBOSITY_HELP = '0-3 info, 4 debug, 5 and above trace';

/** The log level a klog verbosity (`--v=2`) means, or undefined for what is not a whole number >= 0. */
export function logLevelOfVerbosity(text: string): 'info' | 'debug' | 'trace' | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const v = Number(text);
  if (v >= 5) return 'trace';
  return v === 4 ? 'debug' : 'info';
}

/** `--version`'s exit, or undefined to run: `=false` (or not given) runs, as the kubelet's flag. */
function versionOutput(value: unknown, version: string): CommandLineResult | undefined {
  if (value === undefined || value === 'false') return undefined;
  if (value === true || value === 'true') return { kind: 'exit', code: 0, output: `podconfig-agent v${version}\n` };
  if (value === 'raw') {
    // The kubelet prints its version.Info; these are the fields a Node.js build has.
    const info = { gitVersion: `v${version}`, nodeVersion: process.version, platform: `${process.platform}/${process.arch}` };
    return { kind: 'exit', code: 0, output: `${JSON.stringify(info, undefined, 2)}\n` };
  }
  return usageError(`--version: invalid argument ${JSON.stringify(value)}: give true, false or raw`);
}

function usageError(message: string): CommandLineResult {
  return { kind: 'exit', code: 1, output: `podconfig-agent: ${message}\n` };
}

/** Commander's `error: unknown option '--x'\n(Did you mean --y?)\n` as `podconfig-agent: unknown option '--x' (Did you mean --y?)`. */
function usageErrorLine(output: string): string {
  const message = output.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  return `podconfig-agent: ${message}\n`;
}
