/** A usage error: printed as one line, exit status 2. */
export class UsageError extends Error {}

export interface FlagSpec {
  /** `true` for a flag that takes a value, `false` for a switch, `'repeat'` for a value that may be given many times. */
  [flag: string]: boolean | 'repeat';
}

export interface ParsedArgs {
  values: Map<string, string>;
  switches: Set<string>;
  /** Every value of each repeatable flag, in order. */
  lists: Map<string, string[]>;
}

/** Parses `--flag value`, `--flag=value` and `--switch`; anything unknown is a UsageError. */
export function parseFlags(argv: readonly string[], spec: FlagSpec, command: string): ParsedArgs {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const lists = new Map<string, string[]>();
  const known = Object.keys(spec)
    .map((f) => `--${f}`)
    .join(', ');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}" for ${command}; flags: ${known}`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const takesValue = spec[name];
    if (takesValue === undefined) throw new UsageError(`unknown flag --${name} for ${command}; flags: ${known}`);
    if (!takesValue) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      switches.add(name);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (takesValue === 'repeat') {
      lists.set(name, [...(lists.get(name) ?? []), value]);
      continue;
    }
    if (values.has(name)) throw new UsageError(`--${name} given twice`);
    values.set(name, value);
  }
  return { values, switches, lists };
}

export function intFlag(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const raw = args.values.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value))
    throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  if (value < min || value > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function choiceFlag<T extends string>(args: ParsedArgs, name: string, choices: readonly T[], fallback: T): T {
  const raw = args.values.get(name);
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new UsageError(`unknown ${name} "${raw}"; choose one of: ${choices.join(', ')}`);
  return raw as T;
}

export function requiredFlag(args: ParsedArgs, name: string, hint: string): string {
  const raw = args.values.get(name);
  if (raw === undefined || raw.trim() === '') throw new UsageError(`--${name} is required (${hint})`);
  return raw;
}

/** A plain decimal number (`0.7`, `.5`, `1`) within [min, max]. */
export function numberFlag(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const raw = args.values.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\s*(?:\d+(?:\.\d+)?|\.\d+)\s*$/.test(raw) || !Number.isFinite(value))
    throw new UsageError(`--${name} must be a decimal number such as ${fallback}, got "${raw}"`);
  if (value < min || value > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}
