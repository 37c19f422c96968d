/** One labelled field of the mail server form: its hint and its error line, tied to the control by id. */
import type { ReactNode } from 'react';

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  children: (describedBy: string) => ReactNode;
}

export function Field({ id, label, hint, error, children }: FieldProps) {
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      {children(`${id}-hint ${id}-error`)}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      <span id={`${id}-error`} className="field-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </span>
    </div>
  );
}
