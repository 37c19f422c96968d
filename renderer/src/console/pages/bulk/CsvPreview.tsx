/**
 * The rows of the CSV before anything is queued: each row with its recipients and values, and every problem
 * (from the browser's own parse and from POST /bulk-sends/validate) on its row and column.
 */
import type { BulkCsvError, BulkCsvRow } from '../../../../../common/bulk-csv';
import { useT } from '../../i18n';

/** Rows shown in full: all rows with a problem, and the others up to this many (10,000 rows make a slow table). */
const SHOWN = 300;

export function CsvPreview({ rows, lines, errors }: { rows: BulkCsvRow[]; lines: number[]; errors: BulkCsvError[] }) {
  const { t } = useT();
  const byRow = new Map<number, BulkCsvError[]>();
  for (const e of errors) if (e.row_index !== null) byRow.set(e.row_index, [...(byRow.get(e.row_index) ?? []), e]);
  const fileErrors = errors.filter((e) => e.row_index === null);
  const indexes = rows.map((_, i) => i).filter((i, n) => byRow.has(i) || n < SHOWN);
  const valueColumns = [...new Set(rows.flatMap((r) => Object.keys(r.field_values ?? {})))];
  return (
    <div className="csv-preview">
      {fileErrors.length > 0 && (
        <div className="notice notice-error" role="alert">
          <p>{t('bulk.preview.fileErrors')}</p>
          <ul>
            {fileErrors.map((e, i) => (
              <li key={i}>
                {t('bulk.preview.lineError', { line: e.line, column: e.column ?? '—', message: e.message })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="data csv-table">
            <caption className="visually-hidden">{t('bulk.preview.caption', { count: rows.length })}</caption>
            <thead>
              <tr>
                <th>{t('bulk.preview.row')}</th>
                <th>{t('bulk.preview.recipients')}</th>
                {valueColumns.map((c) => (
                  <th key={c}>{c}</th>
                ))}
                <th>{t('bulk.preview.problems')}</th>
              </tr>
            </thead>
            <tbody>
              {indexes.map((i) => {
                const row = rows[i]!;
                const problems = byRow.get(i) ?? [];
                const bad = new Set(problems.map((p) => p.column));
                return (
                  <tr key={i} className={problems.length ? 'row-bad' : undefined}>
                    <td>
                      {i + 1} <span className="muted small">{t('bulk.preview.line', { line: lines[i] ?? '?' })}</span>
                      {row.external_id && <div className="small">{row.external_id}</div>}
                    </td>
                    <td>
                      {row.recipients.map((r, n) => (
                        <div
                          key={n}
                          className={
                            bad.has(`recipient_${n + 1}_email`) || bad.has(`recipient_${n + 1}_name`)
                              ? 'cell-bad'
                              : undefined
                          }
                        >
                          {r.name || '—'} <span className="muted small">&lt;{r.email || '—'}&gt;</span>
                        </div>
                      ))}
                    </td>
                    {valueColumns.map((c) => (
                      <td key={c} className={bad.has(`field.${c}`) ? 'cell-bad' : undefined}>
                        {row.field_values?.[c] ?? ''}
                      </td>
                    ))}
                    <td>
                      {problems.length === 0 ? (
                        <span className="badge tone-success">{t('bulk.preview.ok')}</span>
                      ) : (
                        <ul className="row-problems">
                          {problems.map((p, n) => (
                            <li key={n}>
                              {p.column ? <code>{p.column}</code> : null} {p.message}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {indexes.length < rows.length && (
        <p className="muted">{t('bulk.preview.shown', { shown: indexes.length, total: rows.length })}</p>
      )}
    </div>
  );
}
