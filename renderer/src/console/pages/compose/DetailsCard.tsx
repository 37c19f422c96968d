/** The envelope's title, the message recipients read in their invitation, and whether they act in order. */
import { useId } from 'react';
import { useT } from '../../i18n';
import type { DetailsInput } from './compose-api';

interface Props {
  details: DetailsInput;
  onChange(details: DetailsInput): void;
}

export function DetailsCard({ details, onChange }: Props) {
  const { t } = useT();
  const id = useId();
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('compose.details.title')}</h2>
      <div className="form-grid">
        <div className="form-field">
          <label htmlFor={`${id}-name`}>{t('compose.details.name')}</label>
          <input
            id={`${id}-name`}
            maxLength={500}
            value={details.title}
            placeholder={t('compose.details.namePlaceholder')}
            onChange={(e) => onChange({ ...details, title: e.target.value })}
          />
        </div>
        <div className="form-field">
          <label htmlFor={`${id}-routing`}>{t('compose.details.routing')}</label>
          <select
            id={`${id}-routing`}
            value={details.routing_order}
            onChange={(e) => onChange({ ...details, routing_order: e.target.value as DetailsInput['routing_order'] })}
          >
            <option value="sequential">{t('compose.details.sequential')}</option>
            <option value="parallel">{t('compose.details.parallel')}</option>
          </select>
        </div>
      </div>
      <div className="form-field compose-message">
        <label htmlFor={`${id}-message`}>{t('compose.details.message')}</label>
        <textarea
          id={`${id}-message`}
          rows={3}
          maxLength={10_000}
          value={details.message}
          onChange={(e) => onChange({ ...details, message: e.target.value })}
        />
      </div>
    </section>
  );
}
