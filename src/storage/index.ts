export { ParleyDb, openDb, DEFAULT_DB_NAME, SCHEMA_V1, type SettingRow, type KeyRow } from './db';
export { getKeys, putKey, deleteKey } from './keys';
export { getPrices, putPrice, deletePrice } from './prices';
export {
  TournamentConfigSchema,
  RunConfigSchema,
  RunStatusSchema,
  RunRecordSchema,
  NegotiationRowSchema,
  ExportedNegotiationSchema,
  OutcomeKindSchema,
  RUN_STATUSES,
  negotiationId,
  fullTournamentConfig,
  type StoredTournamentConfig,
  type RunConfig,
  type RunKind,
  type RunStatus,
  type RunRecord,
  type RunRow,
  type StoredStandings,
  type NegotiationRow,
  type ExportedNegotiation,
} from './schema';
export {
  createRun,
  getRun,
  listRuns,
  readRuns,
  readRun,
  updateRun,
  loadLines,
  deleteRun,
  markInterrupted,
  runLockName,
  withRunLock,
  liveRunIds,
  storedJobIds,
  loadNegotiations,
  loadNegotiation,
  forEachNegotiation,
  scanRun,
  type NegotiationFilter,
  type RunInit,
  type RunPatch,
} from './runs';
export { GAMES, type Game, type StoredRun, type RunOf, type LineOf } from './games';
export { RunWriter, type WriterOptions } from './writer';
export { StorageFullError, isQuotaError } from './errors';
// The page asks what an import would refuse; the importers themselves (transfer.ts, run-file.ts)
// load every game's file checker, so only the worker and the command line import them.
export { sizeProblem, EXPORT_FORMAT, EXPORT_FORMAT_JSONL, MAX_IMPORT_BYTES, IMPORT_ERROR_KINDS, type ImportError, type ImportErrorKind } from './file-format';
export { storageUsage, formatBytes } from './usage';
