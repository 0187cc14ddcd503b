/**
 * The command line's usage errors by code (engine/errors.ts): each is printed as `parley: error:
 * MESSAGE` and exits 2. `flag` is the flag at fault as given (`--seed`), where there is one.
 */
import { problems, type Problem, type ProblemOf } from '../engine/errors';

const seeHelp = (invocation: string) => `${invocation} --help lists its flags`;

export const USAGE_PROBLEMS = {
  'unknown-command': (d: { command: string; commands: readonly string[] }) => `unknown command "${d.command}"; choose one of: ${d.commands.join(', ')}`,
  'help-takes-one-command': (d: { commands: readonly string[] }) => `help takes one command, one of: ${d.commands.join(', ')}`,
  'unexpected-argument': (d: { argument: string; command: string; invocation: string }) =>
    `unexpected argument "${d.argument}" for ${d.command}; ${seeHelp(d.invocation)}`,
  'unknown-flag': (d: { flag: string; command: string; invocation: string }) => `unknown flag ${d.flag} for ${d.command}; ${seeHelp(d.invocation)}`,
  'takes-no-value': (d: { flag: string }) => `${d.flag} takes no value`,
  'needs-value': (d: { flag: string }) => `${d.flag} needs a value`,
  'given-twice': (d: { flag: string }) => `${d.flag} given twice`,
  'not-a-number': (d: { flag: string; value: string }) => `${d.flag} must be a whole number, got "${d.value}"`,
  'not-a-decimal': (d: { flag: string; value: string; example: number }) => `${d.flag} must be a decimal number such as ${d.example}, got "${d.value}"`,
  'out-of-range': (d: { flag: string; value: number; min: number; max: number }) => `${d.flag} must be between ${d.min} and ${d.max}, got ${d.value}`,
  'unknown-choice': (d: { flag: string; value: string; choices: readonly string[] }) =>
    `unknown ${d.flag.replace(/^--/, '')} "${d.value}"; choose one of: ${d.choices.join(', ')}`,
  required: (d: { flag: string; hint: string }) => `${d.flag} is required (${d.hint})`,
  /** A flag's value that another layer refused: its problem (an agent spec's, a base URL's, a price's model). */
  'bad-value': (d: { flag: string; problem: Problem }) => `${d.flag}: ${d.problem.message}`,
  'needs-path': (d: { flag: string }) => `${d.flag} needs a file path`,
  'cannot-write': (d: { flag: string; path: string; reason: string }) => `${d.flag}: cannot write ${d.path} (${d.reason})`,
  /** The file's problem: it could not be read, or it was read and refused (a scenario file's line). */
  'unreadable-file': (d: { flag: string; path: string; problem: Problem }) => `${d.flag} ${d.path}: ${d.problem.message}`,
  'output-is-input': (d: { flag: string; path: string; input: string; what: 'the examples' | 'the run' }) =>
    `${d.flag} ${d.path} is the ${d.input} file itself; write ${d.what} somewhere else`,
  'same-output': (d: { flag: string; path: string; other: string; otherPath: string }) =>
    `${d.flag} ${d.path} is the same file as ${d.other} ${d.otherPath}; write them to two files`,
  'flags-exclusive': (d: { flags: readonly [string, string] }) => `choose one of ${d.flags[0]} and ${d.flags[1]}`,
  'check-one-file': () => 'check takes one run file: npm run parley -- check FILE',
  'too-few-agents': () => '--agents needs at least two agents (or one with --self-play)',
  'scenarios-required': () => '--scenarios is required (scenarios per ordered pair, at least 1), or --scenarios-from FILE',
  'not-with-scenario-file': (d: { flag: string }) =>
    `${d.flag} does not apply with --scenarios-from (the file gives every scenario, its turn limit and who opens)`,
  'confirm-large-run': (d: { planned: number; over: number }) =>
    `this tournament plans ${d.planned.toLocaleString('en-US')} negotiations (over ${d.over.toLocaleString('en-US')}); add --yes to run it`,
  'price-form': (d: { value: string }) =>
    `--price must be SPEC=IN,OUT in US dollars per million input and output tokens, e.g. openai:gpt-4o-mini=0.15,0.6; got "${d.value}"`,
  'bad-price': (d: { spec: string; side: 'input' | 'output'; problem: Problem }) => `--price ${d.spec}: ${d.side} price: ${d.problem.message}`,
  'price-twice': (d: { spec: string }) => `--price for ${d.spec} given twice`,
  'turns-range-fixed': (d: { value: string }) => `--turns ${d.value} is a range; a fixed deadline takes one number`,
  'turns-range': (d: { value: string; min: number; max: number }) => `--turns MIN-MAX must have ${d.min} ≤ MIN ≤ MAX ≤ ${d.max}, got "${d.value}"`,
  'webllm-in-browser': (d: { label: string; why: string }) => `${d.label}: ${d.why}`,
  'needs-key': (d: { label: string; variable: string }) =>
    `${d.label} needs a key: set ${d.variable} in the environment (or give --base-url for your own server, with PARLEY_API_KEY)`,
  'bad-host': (d: { value: string }) => `--host must be an address such as 127.0.0.1, got "${d.value}"`,
  'cannot-listen': (d: { host: string; port: number; reason: string }) => `cannot listen on ${d.host}:${d.port} (${d.reason})`,
  'validation-needs-out': () => '--validation needs --out (the held-out examples go to a second file beside it)',
  'unknown-config': (d: { name: string; configs: readonly string[] }) => `--configs: unknown configuration "${d.name}"; choose from: ${d.configs.join(', ')}`,
  'config-twice': (d: { name: string }) => `--configs: "${d.name}" is listed twice`,
  'unknown-market-preset': (d: { name: string; presets: readonly string[] }) => `unknown market preset "${d.name}"; choose one of: ${d.presets.join(', ')}`,
} as const;

export type UsageProblem = ProblemOf<typeof USAGE_PROBLEMS>;
export const usageProblem = problems(USAGE_PROBLEMS);
