/**
 * Compose's two questions before an act that leaves the page: the name a new template gets (prefilled with the
 * envelope's title), and "send now?" with what sending does. Both are modal (focus inside, Escape cancels, focus
 * returns to the button that opened them).
 */
import { useId, useState, type FormEvent } from 'react';
import { Modal } from '../../../shared/Modal';
import { useT } from '../../i18n';
import type { RecipientView } from './compose-api';

const MAX_TEMPLATE_NAME = 500;

export function TemplateNameDialog(props: {
  initialName: string;
  onSave: (name: string) => void;
  onCancel: () => void;
}) {
  const { t } = useT();
  const inputId = useId();
  const [name, setName] = useState(props.initialName.slice(0, MAX_TEMPLATE_NAME));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() !== '') props.onSave(name.trim());
  };
  return (
    <Modal title={t('compose.templateDialog.title')} onClose={props.onCancel}>
      <form onSubmit={submit}>
        <p>{t('compose.templateDialog.body')}</p>
        <label htmlFor={inputId}>{t('compose.templateDialog.name')}</label>
        <input
          id={inputId}
          type="text"
          value={name}
          maxLength={MAX_TEMPLATE_NAME}
          required
          autoFocus
          onFocus={(e) => e.target.select()}
          onChange={(e) => setName(e.target.value)}
        />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={props.onCancel}>
            {t('compose.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={name.trim() === ''}>
            {t('compose.templateDialog.save')}
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function SendConfirmDialog(props: {
  title: string;
  recipients: readonly RecipientView[];
  documents: number;
  sequential: boolean;
  onSend: () => void;
  onCancel: () => void;
}) {
  const { t } = useT();
  const listId = useId();
  return (
    <Modal title={t('compose.sendDialog.title')} onClose={props.onCancel}>
      <p>{t('compose.sendDialog.what', { title: props.title, documents: props.documents })}</p>
      <p id={listId}>{t('compose.sendDialog.recipients', { count: props.recipients.length })}</p>
      <ol className="send-summary" aria-labelledby={listId}>
        {props.recipients.map((r) => (
          <li key={r.recipient_id}>
            <strong>{r.name}</strong> <span className="muted">({t(`compose.role.${r.role}`)})</span>{' '}
            <span className="break">{r.email}</span>
          </li>
        ))}
      </ol>
      <p>{t(props.sequential ? 'compose.sendDialog.sequential' : 'compose.sendDialog.parallel')}</p>
      <p className="muted">{t('compose.sendDialog.final')}</p>
      <div className="dialog-actions">
        {/* Cancel first in focus: Enter on an opened dialog must not send by accident. */}
        <button type="button" className="button" autoFocus onClick={props.onCancel}>
          {t('compose.cancel')}
        </button>
        <button type="button" className="button primary" onClick={props.onSend}>
          {t('compose.sendDialog.confirm')}
        </button>
      </div>
    </Modal>
  );
}
