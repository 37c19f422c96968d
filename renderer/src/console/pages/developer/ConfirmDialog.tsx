/** "Are you sure?" before something that cannot be undone (rotating a key or a secret). */
import type { ReactNode } from 'react';
import { Modal } from '../../../shared/Modal';
import { useT } from '../../i18n';

interface Props {
  title: string;
  body: string;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ReactNode;
}

export function ConfirmDialog({ title, body, confirm, onConfirm, onCancel, children }: Props) {
  const { t } = useT();
  return (
    <Modal title={title} onClose={onCancel}>
      <p>{body}</p>
      {children}
      <div className="form-actions">
        <button type="button" className="button danger" onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" className="button" autoFocus onClick={onCancel}>
          {t('developer.cancel')}
        </button>
      </div>
    </Modal>
  );
}
