/**
 * Who receives the envelope, in routing order: add, edit, remove; reorder by dragging a row or with its
 * Up/Down buttons (keyboard); "at the same time as the one above" makes a parallel group.
 */
import { useState, type DragEvent } from 'react';
import { useT } from '../../i18n';
import type { RecipientInput, RecipientView } from './compose-api';
import { RecipientForm } from './RecipientForm';
import { parallelFlags } from './recipient-order';

interface Props {
  ordered: readonly RecipientView[];
  routing: 'sequential' | 'parallel';
  busy: boolean;
  colourOf(recipientId: string): string;
  onAdd(input: RecipientInput, together: boolean): void;
  onUpdate(recipientId: string, input: RecipientInput): void;
  onRemove(recipientId: string): void;
  onMove(from: number, to: number): void;
  onGroup(index: number, together: boolean): void;
}

export function RecipientsCard({
  ordered,
  routing,
  busy,
  colourOf,
  onAdd,
  onUpdate,
  onRemove,
  onMove,
  onGroup,
}: Props) {
  const { t } = useT();
  const [editing, setEditing] = useState<string | null>(null);
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [addTogether, setAddTogether] = useState(false);
  const flags = parallelFlags(ordered);
  const sequential = routing === 'sequential';

  const drop = (to: number) => (event: DragEvent) => {
    event.preventDefault();
    if (dragFrom !== null && dragFrom !== to) onMove(dragFrom, to);
    setDragFrom(null);
  };

  return (
    <section className="card" aria-labelledby="compose-recipients">
      <h2 id="compose-recipients">{t('compose.recipients.title')}</h2>
      {ordered.length === 0 && <p className="muted">{t('compose.recipients.empty')}</p>}
      {ordered.length > 0 && (
        <ol className="recipient-list">
          {ordered.map((r, i) => (
            <li
              key={r.recipient_id}
              className={`recipient-row${dragFrom === i ? ' dragging' : ''}`}
              draggable={editing === null}
              onDragStart={(e) => {
                setDragFrom(i);
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/plain', r.recipient_id);
              }}
              onDragOver={(e) => e.preventDefault()}
              onDrop={drop(i)}
              onDragEnd={() => setDragFrom(null)}
              style={{ borderLeftColor: colourOf(r.recipient_id) }}
            >
              {editing === r.recipient_id ? (
                <RecipientForm
                  initial={{ name: r.name, email: r.email, role: r.role, signature_method: r.signature_method }}
                  submitLabel={t('compose.recipients.save')}
                  busy={busy}
                  onSubmit={(input) => {
                    onUpdate(r.recipient_id, input);
                    setEditing(null);
                  }}
                  onCancel={() => setEditing(null)}
                />
              ) : (
                <>
                  <span className="drag-grip" aria-hidden="true">
                    ⋮⋮
                  </span>
                  {sequential && (
                    <span className="badge step" title={t('compose.recipients.stepHint')}>
                      {t('compose.recipients.step', { n: r.sequence })}
                    </span>
                  )}
                  <span className="recipient-who">
                    <strong>{r.name}</strong> <span className="muted">&lt;{r.email}&gt;</span>
                    <span className="recipient-how">
                      {t(`compose.role.${r.role}`)}
                      {r.role === 'cc' ? '' : ` · ${t(`compose.method.${r.signature_method}`)}`}
                    </span>
                  </span>
                  {sequential && i > 0 && (
                    <label className="check small">
                      <input
                        type="checkbox"
                        checked={flags[i]}
                        disabled={busy}
                        onChange={(e) => onGroup(i, e.target.checked)}
                      />
                      {t('compose.recipients.together')}
                    </label>
                  )}
                  <span className="recipient-actions">
                    <button
                      type="button"
                      className="button small"
                      disabled={busy || i === 0}
                      onClick={() => onMove(i, i - 1)}
                      aria-label={t('compose.recipients.up', { name: r.name })}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="button small"
                      disabled={busy || i === ordered.length - 1}
                      onClick={() => onMove(i, i + 1)}
                      aria-label={t('compose.recipients.down', { name: r.name })}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="button small"
                      disabled={busy}
                      onClick={() => setEditing(r.recipient_id)}
                      aria-label={t('compose.recipients.edit', { name: r.name })}
                    >
                      {t('compose.edit')}
                    </button>
                    <button
                      type="button"
                      className="button small danger"
                      disabled={busy}
                      onClick={() => onRemove(r.recipient_id)}
                      aria-label={t('compose.recipients.remove', { name: r.name })}
                    >
                      {t('compose.remove')}
                    </button>
                  </span>
                </>
              )}
            </li>
          ))}
        </ol>
      )}
      <h3 className="subhead">{t('compose.recipients.add')}</h3>
      {sequential && ordered.length > 0 && (
        <label className="check small">
          <input type="checkbox" checked={addTogether} onChange={(e) => setAddTogether(e.target.checked)} />
          {t('compose.recipients.addTogether')}
        </label>
      )}
      <RecipientForm
        submitLabel={t('compose.recipients.addButton')}
        busy={busy}
        onSubmit={(input) => onAdd(input, addTogether)}
      />
    </section>
  );
}
