// `parley sft`: fine-tuning examples (chat format) from a run file, split by scenario, with a summary.
import { MOVE_INTERFACES } from '../../agents/llm/settings';
import { ROLES, ZONE_BINS, type Role } from '../../games/bilateral/scenario';
import { readRunFile } from '../../storage/run-file';
import {
  SFT_FORMATS,
  selectedSeats,
  sftExamples,
  SftFilterSchema,
  SftTally,
  SftValidationSchema,
  validationScenarios,
  type SftFilter,
} from '../../training/sft';
import { choiceFlag, intFlag, numberFlag, parseFlags, rangeOf, requiredFlag, usageError, type Command } from '../args';
import type { Io } from '../io';
import { printable } from '../model-flags';
import { OutputFile } from '../output-file';
import { readRunFileText } from '../read-run-file';
import { agentLabel, formatSummary, LineSink, refuseOverwrite, validationPath } from '../training';

const SEATS = [...ROLES, 'both'] as const;

/**
 * `sft --from RUN.jsonl [--out FILE] [--seat buyer|seller|both] [--agent SPEC] [--tier N] [--zone N]
 * [--deals-only] [--min-share X] [--ir-only] [--validation F] [--interface tools|json] [--format per-move|multi-turn]`.
 */
async function run(argv: string[], io: Io): Promise<number> {
  const args = parseFlags(argv, sftCommand);
  const path = requiredFlag(args, 'from', 'a run file, as tournament --jsonl or the app writes it');
  const out = args.values.get('out');
  if (out !== undefined && out.trim() === '') throw usageError('needs-path', { flag: '--out' });
  const fraction = numberFlag(args, 'validation');
  if (fraction > 0 && out === undefined) throw usageError('validation-needs-out');
  if (out !== undefined)
    await refuseOverwrite(path, [['--out', out], ...(fraction > 0 ? [['the validation file', validationPath(out)] as [string, string]] : [])]);
  const minShare = args.values.has('min-share') ? numberFlag(args, 'min-share') : undefined;
  const filter: SftFilter = {
    seat: choiceFlag(args, 'seat', SEATS, 'both'),
    ...(args.values.has('agent') && { agent: agentLabel(args.values.get('agent') as string) }),
    ...(args.values.has('tier') && { tier: intFlag(args, 'tier') }),
    ...(args.values.has('zone') && { zone: intFlag(args, 'zone') }),
    dealsOnly: args.switches.has('deals-only'),
    ...(minShare !== undefined && { minShare }),
    irOnly: args.switches.has('ir-only'),
  };

  const problem = (message: string): number => {
    io.err(printable(`parley: error: ${path}: ${message.replace(/\s*\n\s*/g, ' ')}`) + '\n');
    return 2;
  };
  const read = await readRunFileText(path);
  if (!read.ok) return problem(read.error.message);
  const checked = readRunFile(read.value.text, read.value.size);
  if (!checked.ok) return problem(checked.error.message);
  const { run, rows } = checked.value;
  const runInterface = run.config.kind === 'tournament' ? run.config.tournament.llm.interface : (run.config.llm?.interface ?? 'tools');
  const style = choiceFlag(args, 'interface', MOVE_INTERFACES, runInterface);
  const format = choiceFlag(args, 'format', SFT_FORMATS, 'per-move');

  const picked = rows.flatMap((row) => selectedSeats(row, filter).map((seat: Role) => ({ row, seat })));
  const heldOut = validationScenarios(
    picked.map((p) => p.row.scenario.id),
    fraction,
  );
  // Examples stream out as they are made: a large run's examples need not fit in memory at once.
  const files: OutputFile[] = [];
  const openOut = async (file: string): Promise<LineSink> => {
    try {
      const output = await OutputFile.open(file);
      files.push(output);
      return new LineSink((text) => output.write(text));
    } catch (e) {
      throw usageError('cannot-write', { flag: '--out', path: file, reason: (e as NodeJS.ErrnoException).code ?? String(e) });
    }
  };
  const tally = new SftTally();
  try {
    const train = out === undefined ? new LineSink((text) => io.out(text)) : await openOut(out);
    const validation = out !== undefined && fraction > 0 ? await openOut(validationPath(out)) : null;
    for (const { row, seat } of picked) {
      const examples = sftExamples(row, seat, { interface: style, format });
      const isHeldOut = validation !== null && heldOut.has(row.scenario.id);
      for (const example of examples) await (isHeldOut ? (validation as LineSink) : train).add(JSON.stringify(example) + '\n');
      tally.add(row, seat, isHeldOut, examples.length);
    }
    await train.flush();
    await validation?.flush();
    for (const file of files) await file.commit();
  } catch (e) {
    for (const file of files) await file.abandon();
    throw e;
  }
  const summary = formatSummary(tally.summary(), style, format, rows.length);
  if (out === undefined) io.err(summary);
  else io.out(summary + printable(`train: ${out}`) + '\n' + (fraction > 0 ? printable(`validation: ${validationPath(out)}`) + '\n' : ''));
  return 0;
}

const FILTER = SftFilterSchema.shape;
const ZONES = FILTER.zone.unwrap().options.map((o) => o.value);

export const sftCommand: Command = {
  name: 'sft',
  summary:
    "Fine-tuning examples in chat format, one a line, from a run file (tournament --jsonl or the app's export): by default one per move of the seats picked, as the agent is prompted, split into train and validation by scenario, with a summary.",
  flags: {
    from: { required: true, kind: 'text', value: 'RUN.jsonl', help: 'the run file' },
    out: { kind: 'text', value: 'FILE', default: 'standard output', help: 'where the training examples go' },
    seat: { kind: 'choice', choices: SEATS, default: 'both', help: 'whose moves become examples' },
    agent: { kind: 'text', value: 'SPEC', help: 'only the seats this agent played' },
    tier: { kind: 'int', value: 'N', ...rangeOf(FILTER.tier.unwrap()), help: 'only scenarios of this tier' },
    zone: {
      kind: 'int',
      value: 'N',
      min: Math.min(...ZONES),
      max: Math.max(...ZONES),
      help: `only scenarios of this zone of agreement (${ZONE_BINS.map((z) => `${z.bin}: ${z.label}`).join(', ')})`,
    },
    'deals-only': { kind: 'switch', help: 'only negotiations that ended in a deal' },
    'min-share': {
      kind: 'decimal',
      value: 'X',
      ...rangeOf(FILTER.minShare.unwrap()),
      help: "only deals with gains from trade where the seat's share of v − c is at least X",
    },
    'ir-only': { kind: 'switch', help: 'leave out a seat that made a deal at a loss (individually rational only)' },
    validation: {
      kind: 'decimal',
      value: 'F',
      ...rangeOf(SftValidationSchema),
      default: 0,
      help: 'the fraction of scenarios held out, written beside --out as FILE.validation.jsonl',
    },
    interface: { kind: 'choice', choices: MOVE_INTERFACES, default: "the run's", help: 'moves as tool calls or as one JSON object a turn' },
    format: {
      kind: 'choice',
      choices: SFT_FORMATS,
      default: 'per-move',
      help: "per-move: one example per move, the system prompt and that move's user message as the agent sends them; multi-turn: one conversation per seat per negotiation",
    },
  },
  example: 'npm run parley -- sft --from run.jsonl --out train.jsonl --seat buyer --deals-only --validation 0.1',
  run,
};
