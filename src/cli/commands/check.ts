// `parley check FILE`: a run file checked exactly as the app's import checks it.
import { storeOf } from '../../storage/games';
import { readRunFile } from '../../storage/run-file';
import { parseFlags, usageError, type Command } from '../args';
import type { Io } from '../io';
import { printable } from '../model-flags';
import { readRunFileText } from '../read-run-file';

/**
 * `check FILE`: the app's import validation (`readRunFile`, a run of any game) on a file on disk. Its size is read
 * first, so a file too large to import is refused without being read.
 */
async function run(argv: string[], io: Io): Promise<number> {
  const paths = parseFlags(argv, checkCommand).operands;
  if (paths.length !== 1) throw usageError('check-one-file');
  const path = paths[0] as string;
  const problem = (message: string): number => {
    io.err(printable(`parley: error: ${path}: ${message}`) + '\n');
    return 2;
  };
  const read = await readRunFileText(path);
  if (!read.ok) return problem(read.error.message);
  const { text, size } = read.value;
  const checked = readRunFile(text, size, 'any');
  if (!checked.ok) return problem(checked.error.message.replace(/\s*\n\s*/g, ' '));
  const n = checked.value.rows.length;
  const store = storeOf(checked.value.game);
  io.out(printable(`ok: ${checked.value.run.name}, ${n} ${n === 1 ? store.item : store.items}`) + '\n');
  return 0;
}

export const checkCommand: Command = {
  name: 'check',
  summary:
    'Checks a run file (a JSON or JSONL export, bilateral or market) exactly as the app\'s import does: prints "ok: NAME, N negotiations" ("N markets" for a market run), or the first problem in one line (exit 2).',
  operands: { value: 'FILE', help: 'the run file (write -- FILE for a name that starts with -)' },
  flags: {},
  example: 'npm run parley -- check run.jsonl',
  run,
};
