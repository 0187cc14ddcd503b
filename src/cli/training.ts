/**
 * What the training commands (commands/serve-env.ts, commands/sft.ts) share: the model opponents'
 * settings, the validation file's name, the output checks and the summary.
 */
import { parseAgentSpec } from '../games/bilateral/specs';
import { DEFAULT_LLM_SETTINGS, MOVE_INTERFACES, type LlmSettings } from '../agents/llm/settings';
import type { RemoteSettings } from '../agents/remote';
import type { SftFormat, SftSummary } from '../training/sft';
import { choiceFlag, intFlag, numberFlag, usageError, type ParsedArgs } from './args';
import type { Io } from './io';
import { printable, remoteSettings } from './model-flags';
import { sameFile } from './output-file';

/** Where model opponents are played and with which key: the tournaments' rules (model-flags.ts), and calls in flight per provider. */
export function opponentRemote(args: ParsedArgs, io: Io): RemoteSettings {
  return { ...remoteSettings(args, io.env ?? {}, []), concurrency: intFlag(args, 'concurrency') };
}

/** How model opponents are asked for their moves (the policy's own interface is each episode's). */
export function opponentLlm(args: ParsedArgs): LlmSettings {
  return {
    interface: choiceFlag(args, 'interface', MOVE_INTERFACES, DEFAULT_LLM_SETTINGS.interface),
    temperature: numberFlag(args, 'temperature'),
    maxTokens: args.values.has('max-tokens') ? intFlag(args, 'max-tokens') : null,
    thinking: args.switches.has('thinking'),
  };
}

/** An agent as runs name it: a spec's canonical label (`boulware:beta=0.2`), or the text as given when it is no spec. */
export function agentLabel(text: string): string {
  const parsed = parseAgentSpec(text);
  return parsed.ok ? parsed.value.label : text.trim();
}

/** `train.jsonl` → `train.validation.jsonl`. */
export const validationPath = (out: string): string => (out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.validation.jsonl` : `${out}.validation`);

/** Refuses an output that is the run file read, or both outputs one file (output-file.ts's sameFile), before anything is written. */
export async function refuseOverwrite(from: string, outputs: readonly [flag: string, path: string][]): Promise<void> {
  for (const [i, [flag, path]] of outputs.entries()) {
    if (await sameFile(path, from)) throw usageError('output-is-input', { flag, path, input: '--from', what: 'the examples' });
    for (const [otherFlag, other] of outputs.slice(0, i))
      if (await sameFile(path, other)) throw usageError('same-output', { flag, path, other: otherFlag, otherPath: other });
  }
}

/** Lines gathered up to about a megabyte, then written. */
export class LineSink {
  private lines: string[] = [];
  private size = 0;
  constructor(private readonly write: (text: string) => void | Promise<void>) {}

  async add(line: string): Promise<void> {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.size = 0;
    await this.write(text);
  }
}

const scenarios = (n: number): string => `${n} scenario${n === 1 ? '' : 's'}`;
const fixed = (x: number | null): string => (x === null ? '–' : x.toFixed(2));

export function formatSummary(s: SftSummary, style: string, format: SftFormat, negotiations: number): string {
  const lines: string[] = [];
  const each = format === 'per-move' ? 'one per move' : 'one per seat and negotiation';
  lines.push(
    `sft: ${s.examples} examples (${each}) from ${negotiations} negotiations, moves as ${style === 'tools' ? 'tool calls' : 'JSON'}; ` +
      `train ${s.train} (${scenarios(s.scenarios.train)}), validation ${s.validation} (${scenarios(s.scenarios.validation)})`,
  );
  lines.push(
    `by tier: ${
      Object.entries(s.byTier)
        .map(([tier, n]) => `${tier}: ${n}`)
        .join(', ') || 'none'
    }`,
  );
  lines.push('by agent:');
  // Agents are named as the run file names them: escaped like every name from a file.
  const agents = Object.entries(s.byAgent).map(([agent, n]) => [printable(agent), n] as const);
  const width = Math.max(0, ...agents.map(([a]) => a.length));
  for (const [agent, n] of agents) lines.push(`  ${agent.padEnd(width)}  ${n}`);
  const sh = s.share;
  lines.push(
    `surplus share over ${sh.n} deals with gains from trade: mean ${fixed(sh.mean)}, min ${fixed(sh.min)}, p25 ${fixed(sh.p25)}, ` +
      `median ${fixed(sh.median)}, p75 ${fixed(sh.p75)}, max ${fixed(sh.max)}`,
  );
  const most = Math.max(1, ...sh.histogram);
  sh.histogram.forEach((n, i) => {
    const bar = '#'.repeat(Math.round((n / most) * 30));
    lines.push(`  ${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)} ${bar}${bar ? ' ' : ''}${n}`);
  });
  return lines.join('\n') + '\n';
}
