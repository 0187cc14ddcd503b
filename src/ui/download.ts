/** Handing files to the browser as downloads, and naming them after their run. */
import { err, ok, type Result } from '../engine/result';
import type { ClassExport, ClassFile } from '../worker/class-files';
import type { FromWorker } from '../worker/messages';
import { newId, sim } from './state/sim';

/** Saves `blob` as `fileName` through a temporary link; the URL is freed once the download has begun. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// Files are named by the worker's one rule (worker/file-names.ts), whichever side saves them.
export { runFileName, runFileStem, safeFileName } from '../worker/file-names';

/**
 * Asks the worker for a run's JSON or JSONL export, or (`salvage`) for what can be read of a
 * damaged one, and saves it; the file name on success.
 */
export async function downloadRunExport(runId: string, format: 'json' | 'jsonl' | 'salvage'): Promise<Result<string, string>> {
  const requestId = newId();
  return saved(await sim().request(format === 'salvage' ? { type: 'salvage', requestId, runId } : { type: 'export', requestId, runId, format }));
}

/** Asks the worker for one of a class's files, built there from `data`, and saves it; the file name on success. */
export async function downloadClassFile(data: ClassExport, file: ClassFile): Promise<Result<string, string>> {
  return saved(await sim().request({ type: 'class.file', requestId: newId(), file, data }));
}

/** The worker's file saved, or why it sent none. */
function saved(reply: Extract<FromWorker, { type: 'exported' | 'failed' }>): Result<string, string> {
  if (reply.type === 'failed') return err(reply.message);
  saveBlob(reply.blob, reply.fileName);
  return ok(reply.fileName);
}
