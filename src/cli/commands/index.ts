// Every command of `npm run parley`, in the order the top-level help lists them.
import type { Command } from '../args';
import { checkCommand } from './check';
import { marketCommand } from './market';
import { marketTournamentCommand } from './market-tournament';
import { runCommand } from './run';
import { serveEnvCommand } from './serve-env';
import { sftCommand } from './sft';
import { strategiesCommand } from './strategies';
import { tournamentCommand } from './tournament';

export const COMMANDS: readonly Command[] = [
  runCommand,
  tournamentCommand,
  strategiesCommand,
  checkCommand,
  marketCommand,
  marketTournamentCommand,
  serveEnvCommand,
  sftCommand,
];
