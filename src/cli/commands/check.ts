// `parley check FILE`: a run file checked exactly as the app's import checks it.
import { readRunFile } from '../../storage/run-file';
import { marketFormatOf, readMarketFile } from '../../storage/market-file';
import { parseFlags, usageError, type Command } from '../args';
import type { Io } from '../io';
import { printable } from '../model-flags';
import { readRunFileText } from '../read-run-file';

/**
 * `check FILE`: the app's import validation (`readRunFile`, or `readMarketFile` for a market run) on a file on disk. Its size is read
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
  if (!read.ok) return problem(read.error);
  const { text, size } = read.value;
  if (marketFormatOf(text)) {
    const market = readMarketFile(text, size);
    if (!market.ok) return problem(market.error.message.replace(/\s*\n\s*/g, ' '));
    const n = market.value.lines.length;
    io.out(printable(`ok: ${market.value.run.name}, ${n} market${n === 1 ? '' : 's'}`) + '\n');
    return 0;
  }
  const checked = readRunFile(text, size);
  if (!checked.ok) return problem(checked.error.message.replace(/\s*\n\s*/g, ' '));
  const n = checked.value.rows.length;
  io.out(printable(`ok: ${checked.value.run.name}, ${n} negotiation${n === 1 ? '' : 's'}`) + '\n');
  return 0;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'Checks a run file (a JSON or JSONL export, bilateral or market) exactly as the app\'s import does: prints "ok: NAME, N negotiations" ("N markets" for a market run), or the first problem in one line (exit 2).',
  operands: { value: 'FILE', help: 'the run file (write -- FILE for a name that starts with -)' },
  flags: {},
  example: 'npm run parley -- check run.jsonl',
  run,
};
