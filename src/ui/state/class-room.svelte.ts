/**
 * The teacher's class page: games handed in by result link (pasted many at once, or scanned) or by
 * file, each reported; the class as a chosen set of the stored games; the roster. Every import goes
 * through the worker's `handin` request, which checks it exactly as a file import is checked.
 */
import type { HandInReport, HandInSource } from '../../storage/hand-ins';
import { readHandIns } from '../../storage/hand-in-records';
import { payloadsIn } from '../../storage/result-link';
import type { ParleyDb } from '../../storage/db';
import type { ClassFile } from '../../worker/class-files';
import { downloadClassFile } from '../download';
import { classExport, playerOf, type SkippedGame } from '../class-export';
import {
  CLASS_SETTINGS_KEY,
  DEFAULT_CLASS_SETTINGS,
  chosenGames,
  classEntry,
  handedInList,
  parseRoster,
  pick,
  readClassSettings,
  type ClassEntry,
  type ClassSettings,
} from '../class-set';
import { storedGames } from './player.svelte';
import { database, newId, sim } from './sim';

/** One game handed in, as the page reports it. */
export interface HandInLine {
  /** Where it came from: `link 3`, or the file's name. */
  source: string;
  status: HandInReport['status'] | 'failed';
  /** The game's name and the student it names, where they could be read. */
  runName: string | null;
  student: string | null;
  message: string | null;
  runId: string | null;
}

export class ClassRoom {
  entries = $state.raw<ClassEntry[]>([]);
  skipped = $state.raw<SkippedGame[]>([]);
  settings = $state.raw<ClassSettings>({ ...DEFAULT_CLASS_SETTINGS });
  loaded = $state(false);
  error = $state<string | null>(null);
  /** The last hand-in's report, one line per game, in the order given. */
  lines = $state.raw<HandInLine[]>([]);
  /** Games of the hand-in under way: done and total, or null. */
  progress = $state.raw<{ done: number; total: number } | null>(null);
  /** A class file is being built (in the worker) and saved. */
  saving = $state(false);

  /** The chosen games, each once, and the class export over them. */
  readonly chosen = $derived(chosenGames(this.entries, this.settings));
  readonly data = $derived(classExport(this.chosen.games, this.skipped));
  readonly roll = $derived(handedInList(this.settings.roster, this.chosen.games));

  constructor(readonly db: () => ParleyDb = database) {}

  async load(): Promise<void> {
    try {
      const db = this.db();
      const [{ games, skipped }, handIns, stored] = await Promise.all([storedGames(db), readHandIns(db), db.settings.get(CLASS_SETTINGS_KEY)]);
      this.entries = games.map((g) => classEntry(g, handIns.has(g.runId)));
      this.skipped = skipped;
      if (!this.loaded) this.settings = readClassSettings(stored?.value);
      this.error = null;
    } catch (e) {
      this.error = `The stored games could not be read: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.loaded = true;
    }
  }

  /** Every result link in the text (one a line, or among other words), each imported on its own. */
  async handInText(text: string): Promise<void> {
    const payloads = payloadsIn(text);
    if (payloads.length === 0) {
      this.lines = [
        {
          source: 'the pasted text',
          status: 'malformed',
          runName: null,
          student: null,
          message: 'it holds no result link (they contain “#/handin/”)',
          runId: null,
        },
      ];
      return;
    }
    await this.handInAll(payloads.map((payload, i) => ({ label: `link ${i + 1}`, source: { kind: 'link', payload } })));
  }

  async handInFiles(files: readonly File[]): Promise<void> {
    await this.handInAll(files.map((file) => ({ label: file.name, source: { kind: 'file', file } })));
  }

  /** One link (opened, or scanned): its line joins the report. */
  async handInLink(payload: string, label = 'the opened link'): Promise<HandInLine> {
    const line = await this.one(label, { kind: 'link', payload });
    this.lines = [...this.lines, line];
    await this.load();
    return line;
  }

  private async handInAll(items: { label: string; source: HandInSource }[]): Promise<void> {
    this.lines = [];
    this.progress = { done: 0, total: items.length };
    try {
      // One at a time: each is checked and stored on its own, so a bad one loses nothing else.
      for (const { label, source } of items) {
        const line = await this.one(label, source);
        this.lines = [...this.lines, line];
        this.progress = { done: this.lines.length, total: items.length };
      }
    } finally {
      this.progress = null;
      await this.load();
    }
  }

  private async one(label: string, source: HandInSource): Promise<HandInLine> {
    const reply = await sim().request({
      type: 'handin',
      requestId: newId(),
      source: source.kind === 'file' ? { kind: 'file', file: source.file as Blob } : source,
    });
    if (reply.type === 'failed') return { source: label, status: 'failed', runName: null, student: null, message: reply.message, runId: null };
    const { report } = reply;
    return {
      source: label,
      status: report.status,
      runName: report.runName,
      student: report.runName === null ? null : playerOf(report.runName),
      message: report.message,
      runId: report.runId,
    };
  }

  /** One of the class's files, built by the worker from the class as it stands: the export as JSON, its games or its ranking as CSV. */
  async saveFile(file: ClassFile): Promise<void> {
    this.saving = true;
    try {
      const saved = await downloadClassFile(this.data, file);
      if (!saved.ok) this.error = `The class's file could not be made: ${saved.error}`;
    } finally {
      this.saving = false;
    }
  }

  async update(change: Partial<ClassSettings>): Promise<void> {
    this.settings = { ...this.settings, ...change };
    await this.save();
  }

  async tick(entry: ClassEntry, chosen: boolean): Promise<void> {
    this.settings = pick(this.settings, entry, chosen);
    await this.save();
  }

  async setRoster(text: string): Promise<void> {
    await this.update({ roster: parseRoster(text) });
  }

  private async save(): Promise<void> {
    try {
      await this.db().settings.put({ key: CLASS_SETTINGS_KEY, value: $state.snapshot(this.settings) });
    } catch (e) {
      this.error = `The class's settings could not be saved (${e instanceof Error ? e.message : String(e)}); they hold until the page is closed.`;
    }
  }
}
