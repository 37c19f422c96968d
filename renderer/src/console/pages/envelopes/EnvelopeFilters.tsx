/**
 * Search and filters above the envelope list. Every change goes to the page address (see list-query.ts);
 * the search text goes when the form is submitted, so typing does not flood the history.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api } from '../../api';
import { useT } from '../../i18n';
import type { ConsoleStringKey } from '../../strings';
import { useResource } from '../../use-resource';
import { hasFilters, NO_FILTERS, type ListFilters } from './list-query';
import { ENVELOPE_STATUSES, type EnvelopeStatus } from './types';

interface Props {
  filters: ListFilters;
  onChange(filters: ListFilters): void;
}

interface Choices {
  templates: { template_id: string; name: string; archived: boolean }[];
  bulkSends: { bulk_send_id: string; created_at: string; counts: { total: number } }[];
}

/** Templates and bulk sends to filter by; a failure only hides those two filters (the list still works). */
function useChoices() {
  return useResource<Choices>(async (signal) => {
    const [templates, bulkSends] = await Promise.all([
      api<{ templates: Choices['templates'] }>('GET', '/templates?archived=all&limit=200', { signal }).catch(() => ({
        templates: [],
      })),
      api<{ bulk_sends: Choices['bulkSends'] }>('GET', '/bulk-sends?limit=100', { signal }).catch(() => ({
        bulk_sends: [],
      })),
    ]);
    return { templates: templates.templates, bulkSends: bulkSends.bulk_sends };
  }, []);
}

function StatusChoice({ filters, onChange }: Props) {
  const { t } = useT();
  const toggle = (status: EnvelopeStatus, on: boolean) => {
    const chosen = new Set(filters.status);
    if (on) chosen.add(status);
    else chosen.delete(status);
    onChange({ ...filters, status: ENVELOPE_STATUSES.filter((s) => chosen.has(s)) });
  };
  return (
    <fieldset className="env-status-choice">
      <legend>{t('envelopes.filter.status')}</legend>
      {ENVELOPE_STATUSES.map((status) => (
        <label key={status} className="check">
          <input
            type="checkbox"
            checked={filters.status.includes(status)}
            onChange={(e) => toggle(status, e.target.checked)}
          />
          {t(`envelopes.status.${status}` as ConsoleStringKey)}
        </label>
      ))}
    </fieldset>
  );
}

export function EnvelopeFilters({ filters, onChange }: Props) {
  const { t, formatDate } = useT();
  const id = useId();
  const [q, setQ] = useState(filters.q);
  useEffect(() => setQ(filters.q), [filters.q]);
  const choices = useChoices().data;
  // Open when the address carries filters beyond the search; then it stays as the user leaves it.
  const [open, setOpen] = useState(() => hasFilters({ ...filters, q: '', mine: false }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({ ...filters, q: q.trim() });
  };
  const set = (name: keyof Omit<ListFilters, 'status' | 'mine'>, value: string) =>
    onChange({ ...filters, [name]: value });

  return (
    <section className="card envelope-filters" aria-label={t('envelopes.filter.label')}>
      <form role="search" className="env-search-row" onSubmit={submit}>
        <label htmlFor={`${id}-q`} className="visually-hidden">
          {t('envelopes.search.label')}
        </label>
        <input
          id={`${id}-q`}
          type="search"
          value={q}
          maxLength={200}
          placeholder={t('envelopes.search.placeholder')}
          onChange={(e) => setQ(e.target.value)}
        />
        <button type="submit" className="button primary">
          {t('envelopes.search.submit')}
        </button>
      </form>
      <label className="check env-only-mine">
        <input
          type="checkbox"
          checked={filters.mine}
          onChange={(e) => onChange({ ...filters, mine: e.target.checked })}
        />
        {t('envelopes.filter.mine')}
      </label>
      <details className="env-more-filters" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{t('envelopes.filter.more')}</summary>
        <StatusChoice filters={filters} onChange={onChange} />
        <div className="form-grid">
          <div className="form-field">
            <label htmlFor={`${id}-from`}>{t('envelopes.filter.from')}</label>
            <input
              id={`${id}-from`}
              type="date"
              value={filters.created_from}
              max={filters.created_to || undefined}
              onChange={(e) => set('created_from', e.target.value)}
            />
          </div>
          <div className="form-field">
            <label htmlFor={`${id}-to`}>{t('envelopes.filter.to')}</label>
            <input
              id={`${id}-to`}
              type="date"
              value={filters.created_to}
              min={filters.created_from || undefined}
              onChange={(e) => set('created_to', e.target.value)}
            />
          </div>
          {(choices?.templates.length ?? 0) > 0 && (
            <div className="form-field">
              <label htmlFor={`${id}-template`}>{t('envelopes.filter.template')}</label>
              <select
                id={`${id}-template`}
                value={filters.template_id}
                onChange={(e) => set('template_id', e.target.value)}
              >
                <option value="">{t('envelopes.filter.any')}</option>
                {choices!.templates.map((tpl) => (
                  <option key={tpl.template_id} value={tpl.template_id}>
                    {tpl.archived ? t('envelopes.filter.archived', { name: tpl.name }) : tpl.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          {(choices?.bulkSends.length ?? 0) > 0 && (
            <div className="form-field">
              <label htmlFor={`${id}-bulk`}>{t('envelopes.filter.bulk')}</label>
              <select
                id={`${id}-bulk`}
                value={filters.bulk_send_id}
                onChange={(e) => set('bulk_send_id', e.target.value)}
              >
                <option value="">{t('envelopes.filter.any')}</option>
                {choices!.bulkSends.map((b) => (
                  <option key={b.bulk_send_id} value={b.bulk_send_id}>
                    {t('envelopes.filter.bulkItem', { date: formatDate(b.created_at), count: b.counts.total })}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
      </details>
      {hasFilters(filters) && (
        <button type="button" className="button small env-clear-filters" onClick={() => onChange(NO_FILTERS)}>
          {t('envelopes.filter.clear')}
        </button>
      )}
    </section>
  );
}
