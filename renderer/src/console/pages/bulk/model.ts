/** The bulk send API's shapes as the console reads them (server/http/schemas/bulk-sends.ts, docs/bulk-send.md). */
import type { BulkCsvFormat } from '../../../../../common/bulk-csv';

export type BulkStatus = 'queued' | 'running' | 'completed' | 'completed_with_errors' | 'canceled';
export type RowStatus = 'pending' | 'created' | 'sent' | 'failed' | 'canceled';

export interface BulkCounts {
  total: number;
  created: number;
  sent: number;
  failed: number;
  canceled: number;
  pending: number;
}

export interface BulkFailure {
  row_index: number;
  external_id: string | null;
  envelope_id: string | null;
  code: string;
  message: string;
}

export interface BulkSend {
  bulk_send_id: string;
  status: BulkStatus;
  source: { kind: 'envelope' | 'template'; id: string; version: number | null };
  counts: BulkCounts;
  failures?: BulkFailure[];
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
}

export interface BulkSendList {
  bulk_sends: BulkSend[];
  next_cursor: string | null;
}

export interface BulkRowItem {
  row_index: number;
  envelope_id: string | null;
  external_id: string | null;
  status: RowStatus;
  envelope_status: string | null;
  error: string | null;
}

export interface BulkRowList {
  envelopes: BulkRowItem[];
  next_cursor: string | null;
}

export interface SourceFormat extends BulkCsvFormat {
  source: { kind: 'envelope' | 'template'; id: string; version: number | null; title: string };
  columns: string[];
  sample_csv: string;
}

/** A batch is still moving while queued or running: the detail page polls it then. */
export function isRunning(status: BulkStatus): boolean {
  return status === 'queued' || status === 'running';
}

/** Rows that reached an end (sent, failed or canceled): the progress bar's value. */
export function doneRows(counts: BulkCounts): number {
  return counts.sent + counts.failed + counts.canceled;
}

export function statusTone(status: BulkStatus): string {
  if (status === 'completed') return 'tone-success';
  if (status === 'completed_with_errors') return 'tone-warning';
  if (status === 'canceled') return 'tone-danger';
  return 'tone-info';
}
