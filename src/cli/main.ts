// `npm run parley -- <command> [flags]`: finds the command (commands/), prints help, and turns errors into exit statuses.
import { KEY_ENV } from '../agents/remote';
import { PRESETS } from '../games/bilateral/scenario';
import { helpText, synopsis, usageError, UsageError, wantsHelp, wrap, type Command } from './args';
import { BILATERAL_MODEL_FLAGS } from './bilateral-flags';
import { COMMANDS } from './commands';
import type { Io } from './io';
import { printable } from './model-flags';

export { EXIT_INTERRUPTED, type Io } from './io';

const commandNamed = (name: string): Command | undefined => COMMANDS.find((c) => c.name === name);
const commandNames = () => [...COMMANDS.map((c) => c.name), 'help'];

/** The model flags every model-seating command takes: the top-level help names them once, as [model flags]. */
const MODEL_FLAG_NAMES = new Set(Object.keys(BILATERAL_MODEL_FLAGS));

/** A command in the top-level help: its name and flags, then what it does. */
function commandEntry(command: Command): string[] {
  const indent = ''.padEnd(14);
  // A command that plays models remotely takes them all; sft's --interface alone is shown as itself.
  const models = 'base-url' in command.flags;
  const parts = models ? [...synopsis(command, MODEL_FLAG_NAMES), '[model flags]'] : synopsis(command);
  const summary = command.summary.split(/\s+/);
  // A command without flags has its summary on its own line.
  const [first = '', ...rest] = wrap(parts.length > 0 ? parts : summary, indent);
  const head = command.name.length <= 10 ? `  ${command.name.padEnd(10)}  ${first.trimStart()}` : `  ${command.name}  ${first.trimStart()}`;
  return [head.trimEnd(), ...rest, ...(parts.length > 0 ? wrap(summary, indent) : [])];
}

/** The top-level help: every command with its flags and what it does. */
export function usage(): string {
  return [
    'usage: npm run parley -- <command> [flags]',
    "       npm run parley -- <command> --help     (or: help <command>) that command's flags, defaults and an example",
    '',
    'commands:',
    ...COMMANDS.flatMap(commandEntry),
    '',
    ...wrap(['model flags:', ...synopsis({ flags: BILATERAL_MODEL_FLAGS }), '(--price: run and tournament)'], ''),
    '',
    ...wrap(
      [
        'SPEC is a strategy name with optional parameters, e.g. boulware or boulware:beta=0.2:kappa=0.1 (see strategies),',
        'or a remote model as PROVIDER:MODEL, e.g. openai:gpt-4o-mini or vllm:Qwen/Qwen3-8B (+think: it thinks first).',
        `Each provider's key is read from its environment variable (${Object.values(KEY_ENV).slice(0, 3).join(', ')}, …) and sent to that`,
        'provider alone; with --base-url every model is played on that server, which is sent PARLEY_API_KEY and no other key.',
      ]
        .join(' ')
        .split(' '),
      '',
    ),
    `presets: ${PRESETS.join(', ')}`,
    '',
  ].join('\n');
}

/** `help`, `help COMMAND`: the top-level help or that command's. */
function helpCommand(rest: readonly string[], io: Io): number {
  const [name, ...more] = rest;
  if (name === undefined) {
    io.out(usage());
    return 0;
  }
  const command = commandNamed(name);
  if (!command || more.length > 0) throw usageError('help-takes-one-command', { commands: COMMANDS.map((c) => c.name) });
  io.out(helpText(command));
  return 0;
}

/** Returns the exit status: 0 on success, 2 on a usage error, 1 on a bug, 130 when stopped through `io.signal`. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h') {
      io.out(usage());
      return 0;
    }
    if (name === 'help') return helpCommand(rest, io);
    const command = commandNamed(name);
    if (!command) throw usageError('unknown-command', { command: name, commands: commandNames() });
    if (wantsHelp(rest)) {
      io.out(helpText(command));
      return 0;
    }
    return await command.run(rest, io);
  } catch (e) {
    // Messages name files and specs as given: escaped, so a hostile name cannot rewrite the terminal.
    if (e instanceof UsageError) {
      io.err(printable(`parley: error: ${e.message}`) + '\n');
      return 2;
    }
    io.err(printable(`parley: internal error: ${e instanceof Error ? e.message : String(e)}`) + '\n');
    return 1;
  }
}
