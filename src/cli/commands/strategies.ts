// `parley strategies`: the scripted strategies and their parameters.
import { STRATEGIES } from '../../games/bilateral/strategies';
import { parseFlags, type Command } from '../args';
import type { Io } from '../io';

async function run(argv: string[], io: Io): Promise<number> {
  parseFlags(argv, strategiesCommand);
  for (const s of STRATEGIES) {
    io.out(`${s.name}: ${s.summary}\n`);
    for (const [key, p] of Object.entries(s.params)) io.out(`  ${key}=${p.default}  (${p.min} to ${p.max}) ${p.doc}\n`);
  }
  return 0;
}

export const strategiesCommand: Command = {
  name: 'strategies',
  summary:
    'Lists the scripted strategies, each with its parameters: default, range and meaning. A SPEC is a name with optional parameters, e.g. boulware or boulware:beta=0.2:kappa=0.1.',
  flags: {},
  example: 'npm run parley -- strategies',
  run,
};
