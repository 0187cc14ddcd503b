// Flags: each command declares a table (one entry a flag, with its meaning, default and limits);
// `parseFlags` reads argv with node:util's parseArgs against it, and `helpText` prints the same table.
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { CodeOf, DataArgs } from '../engine/errors';
import { USAGE_PROBLEMS, usageProblem, type UsageProblem } from './problems';

/** A usage error: its problem (problems.ts) is printed as one line, exit status 2. */
export class UsageError extends Error {
  constructor(readonly problem: UsageProblem) {
    super(problem.message);
  }
  get code(): UsageProblem['code'] {
    return this.problem.code;
  }
}

/** The usage error for a code and its data: `throw usageError('needs-value', { flag: '--seed' })`. */
export const usageError = <C extends CodeOf<typeof USAGE_PROBLEMS>>(code: C, ...data: DataArgs<typeof USAGE_PROBLEMS, C>): UsageError =>
  new UsageError(usageProblem(code, ...data) as UsageProblem);

interface FlagBase {
  /** What the flag does, in a few words (lower case, no full stop). */
  help: string;
  /** The command needs it (`true`), or needs it in a case (`'without --preset'`): shown without brackets in the synopsis. */
  required?: true | string;
}
/** `--json`: present or not. */
export interface SwitchFlag extends FlagBase {
  kind: 'switch';
}
/** `--agents SPEC,...`: one value; `repeat` for a flag that may be given many times (`--price`). */
export interface TextFlag extends FlagBase {
  kind: 'text';
  value: string;
  default?: string;
  repeat?: boolean;
}
/** `--seed N`: a whole number within [min, max]. */
export interface IntFlag extends FlagBase {
  kind: 'int';
  value: string;
  min: number;
  max: number;
  /** The value when the flag is absent; text where it depends on other flags. */
  default?: number | string;
}
/** `--temperature T`: a plain decimal number within [min, max]. */
export interface DecimalFlag extends FlagBase {
  kind: 'decimal';
  value: string;
  min: number;
  max: number;
  default?: number | string;
}
/** `--deadline fixed|uncertain`: one of a list. */
export interface ChoiceFlag extends FlagBase {
  kind: 'choice';
  choices: readonly string[];
  default?: string;
}
export type FlagDef = SwitchFlag | TextFlag | IntFlag | DecimalFlag | ChoiceFlag;
export type FlagTable = Readonly<Record<string, FlagDef>>;

/** The range of a zod integer or number schema: limits are read from the schemas the app checks with, never restated. */
export function rangeOf(schema: z.ZodNumber): { min: number; max: number } {
  const { minValue: min, maxValue: max } = schema;
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) throw new Error('rangeOf: the schema has no finite range');
  return { min, max };
}

/** What a command is: its flags, its help and what it does. Every command file exports one. */
export interface Command {
  name: string;
  /** One line: what the command does. */
  summary: string;
  /** Arguments that are not flags, as the usage line shows them (`FILE`), with their meaning. */
  operands?: { value: string; help: string };
  flags: FlagTable;
  /** Paragraphs after the flags: how the flags combine. */
  notes?: string;
  /** One example command line. */
  example: string;
  /** How the command is started, when not `npm run parley -- NAME` (`npm run bench --`). */
  invocation?: string;
  /** Runs the command on its arguments (the command name left off): the exit status, or a UsageError thrown. */
  run: (argv: string[], io: import('./io').Io) => Promise<number>;
}

export interface ParsedArgs {
  command: string;
  flags: FlagTable;
  values: Map<string, string>;
  switches: Set<string>;
  /** Every value of each repeatable flag, in order. */
  lists: Map<string, string[]>;
  /** Arguments that are not flags (only for a command with operands; otherwise refused). */
  operands: string[];
}

/** True when argv asks for help (`--help` or `-h` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

const invocationOf = (command: Pick<Command, 'name' | 'invocation'>) => command.invocation ?? `npm run parley -- ${command.name}`;

/**
 * Reads `--flag value`, `--flag=value` and `--switch` with node:util's parseArgs. Its own strict mode is not used:
 * its errors name the flag only inside English text, and it refuses `--seed -3` as ambiguous; the same checks are
 * made here over its tokens, each with a message that names the flag.
 */
export function parseFlags(argv: readonly string[], command: Pick<Command, 'name' | 'flags' | 'operands' | 'invocation'>): ParsedArgs {
  const { name, flags } = command;
  const options = Object.fromEntries(
    Object.entries(flags).map(([flag, def]) => [
      flag,
      def.kind === 'switch' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: def.kind === 'text' && def.repeat === true },
    ]),
  );
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const lists = new Map<string, string[]>();
  const operands: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      if (command.operands === undefined) throw usageError('unexpected-argument', { argument: token.value, command: name, invocation: invocationOf(command) });
      operands.push(token.value);
      continue;
    }
    const def = Object.hasOwn(flags, token.name) ? flags[token.name] : undefined;
    if (def === undefined) throw usageError('unknown-flag', { flag: token.rawName, command: name, invocation: invocationOf(command) });
    if (def.kind === 'switch') {
      if (token.value !== undefined) throw usageError('takes-no-value', { flag: `--${token.name}` });
      switches.add(token.name);
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith('--'))) throw usageError('needs-value', { flag: `--${token.name}` });
    if (def.kind === 'text' && def.repeat) {
      lists.set(token.name, [...(lists.get(token.name) ?? []), value]);
      continue;
    }
    if (values.has(token.name)) throw usageError('given-twice', { flag: `--${token.name}` });
    values.set(token.name, value);
  }
  return { command: name, flags, values, switches, lists, operands };
}

function defOf<K extends FlagDef['kind']>(args: ParsedArgs, name: string, kind: K): Extract<FlagDef, { kind: K }> {
  const def = args.flags[name];
  if (def?.kind !== kind) throw new Error(`--${name} is not a ${kind} flag of ${args.command}`);
  return def as Extract<FlagDef, { kind: K }>;
}

/** A whole number within the flag's range; `fallback` (else the table's default) when absent. */
export function intFlag(args: ParsedArgs, name: string, fallback?: number): number {
  const { min, max, default: given } = defOf(args, name, 'int');
  const raw = args.values.get(name);
  if (raw === undefined) {
    const value = fallback ?? given;
    if (typeof value !== 'number') throw new Error(`--${name} has no default`);
    return value;
  }
  return wholeNumber(name, raw, min, max);
}

/** `raw`, given to `--name`, as a whole number within [min, max]. */
export function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw usageError('not-a-number', { flag: `--${name}`, value: raw });
  if (value < min || value > max) throw usageError('out-of-range', { flag: `--${name}`, value, min, max });
  return value;
}

/** A plain decimal number (`0.7`, `.5`, `1`) within the flag's range. */
export function numberFlag(args: ParsedArgs, name: string, fallback?: number): number {
  const { min, max, default: given } = defOf(args, name, 'decimal');
  const value = fallback ?? given;
  const raw = args.values.get(name);
  if (raw === undefined) {
    if (typeof value !== 'number') throw new Error(`--${name} has no default`);
    return value;
  }
  const parsed = Number(raw);
  if (!/^\s*(?:\d+(?:\.\d+)?|\.\d+)\s*$/.test(raw) || !Number.isFinite(parsed))
    throw usageError('not-a-decimal', { flag: `--${name}`, value: raw, example: typeof value === 'number' ? value : min });
  if (parsed < min || parsed > max) throw usageError('out-of-range', { flag: `--${name}`, value: parsed, min, max });
  return parsed;
}

/** One of the flag's choices (`choices` is the same list the table holds, for its type). */
export function choiceFlag<T extends string>(args: ParsedArgs, name: string, choices: readonly T[], fallback: T): T {
  const def = defOf(args, name, 'choice');
  if (def.choices !== choices) throw new Error(`--${name}: the choices differ from the flag table's`);
  const raw = args.values.get(name);
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw usageError('unknown-choice', { flag: `--${name}`, value: raw, choices });
  return raw as T;
}

export function requiredFlag(args: ParsedArgs, name: string, hint: string): string {
  const raw = args.values.get(name);
  if (raw === undefined || raw.trim() === '') throw usageError('required', { flag: `--${name}`, hint });
  return raw;
}

/** Help is laid out to this many columns. */
export const HELP_WIDTH = 116;

/** Words (or synopsis parts) laid into lines of at most HELP_WIDTH characters, each after `indent`. */
export function wrap(words: readonly string[], indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && indent.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].map((l) => indent + l);
}

/** `--seed N`, `--deadline fixed|uncertain`: the flag as its usage line shows it. */
export function flagForm(name: string, def: FlagDef): string {
  switch (def.kind) {
    case 'switch':
      return `--${name}`;
    case 'choice':
      return `--${name} ${def.choices.join('|')}`;
    case 'text':
    case 'int':
    case 'decimal':
      return `--${name} ${def.value}`;
  }
}

/** `--buyers N`, `[--budget T]`, ...: the command's flags as a synopsis shows them, those in `skip` left out. */
export function synopsis(command: Pick<Command, 'flags' | 'operands'>, skip: ReadonlySet<string> = new Set()): string[] {
  const parts = Object.entries(command.flags)
    .filter(([name]) => !skip.has(name))
    .map(([name, def]) => (def.required ? flagForm(name, def) : `[${flagForm(name, def)}]`));
  return [...(command.operands ? [command.operands.value] : []), ...parts];
}

/** "(0 to 4294967295; default 1)", "(repeatable)": what the table knows beside the meaning. */
function flagFacts(def: FlagDef): string {
  const facts: string[] = [];
  if (def.required !== undefined) facts.push(def.required === true ? 'required' : `required ${def.required}`);
  if (def.kind === 'int' || def.kind === 'decimal') facts.push(`${def.min} to ${def.max}`);
  if (def.kind === 'text' && def.repeat) facts.push('repeatable');
  if (def.kind !== 'switch' && def.default !== undefined) facts.push(`default ${def.default}`);
  return facts.join('; ');
}

/** The meaning with its facts: "seed (0 to 9; default 1)", "required (unless X; 1 to 9)". */
function describeFlag(def: FlagDef): string {
  const facts = flagFacts(def);
  if (facts === '') return def.help;
  return def.help.endsWith(')') ? `${def.help.slice(0, -1)}; ${facts})` : `${def.help} (${facts})`;
}

/** A command's help, from its table: usage, every flag with its meaning and default, notes, an example. */
export function helpText(command: Omit<Command, 'run'>): string {
  const entries = Object.entries(command.flags);
  const forms = entries.map(([name, def]) => flagForm(name, def));
  const width = Math.min(26, Math.max(12, ...forms.map((f) => f.length), command.operands?.value.length ?? 0));
  const hang = ''.padEnd(width + 4);
  const line = (form: string, text: string) => {
    const [first = '', ...rest] = wrap(text.split(' '), hang);
    const head = form.length > width ? `  ${form}\n${first}` : `  ${form.padEnd(width)}  ${first.trimStart()}`;
    return [head, ...rest].join('\n');
  };
  const operand = command.operands ? ` ${command.operands.value}` : '';
  return [
    `usage: ${invocationOf(command)}${operand}${entries.length > 0 ? ' [flags]' : ''}`,
    '',
    ...wrap(command.summary.split(/\s+/), ''),
    '',
    ...(command.operands ? [line(command.operands.value, command.operands.help)] : []),
    ...(entries.length > 0 ? ['flags:'] : []),
    ...entries.map(([, def], i) => line(forms[i] as string, describeFlag(def))),
    line('-h, --help', 'print this help'),
    ...(command.notes ? ['', ...wrap(command.notes.split(/\s+/), '')] : []),
    '',
    'example:',
    `  ${command.example}`,
    '',
  ].join('\n');
}
