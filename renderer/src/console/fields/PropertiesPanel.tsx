/**
 * The selected field's properties: who fills it, where it is (numbers, for exact placement without a mouse),
 * label, required, pre-assigned value and whether the signer may change it, options, the template's
 * field_key, and for a USB DSC signer's Signature the PDF's own empty signature field to sign into.
 */
import { useId, type ReactNode } from 'react';
import { FIELD } from '../../fields';
import { useT } from '../i18n';
import { holdsFields, isDscSigner, takesOptions, takesValue } from './field-kinds';
import { placeAt, resizeTo } from './geometry';
import { typeKey } from './Palette';
import type { EditorField, EditorParty, PageBox } from './types';

interface Props {
  field: EditorField;
  parties: readonly EditorParty[];
  pages: readonly PageBox[];
  problem: string | undefined;
  showFieldKey: boolean;
  emptySignatureFields: readonly string[];
  onChange(field: EditorField): void;
  onRemove(id: string): void;
}

function Row({ label, children, id }: { label: string; children: ReactNode; id: string }) {
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

/** Sets or clears an optional text member ('' clears it). */
function withText<K extends 'label' | 'value' | 'field_key' | 'pdf_signature_field'>(
  field: EditorField,
  key: K,
  text: string,
): EditorField {
  const next = { ...field };
  if (text === '') delete next[key];
  else next[key] = text;
  return next;
}

function ValueInput({ field, id, onChange }: { field: EditorField; id: string; onChange(field: EditorField): void }) {
  const { t } = useT();
  const value = field.value ?? '';
  const set = (text: string) => onChange(withText(field, 'value', text));
  if (field.field_type === FIELD.CHECKBOX) {
    return (
      <select id={id} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">{t('compose.fields.value.none')}</option>
        <option value="true">{t('compose.fields.value.checked')}</option>
        <option value="false">{t('compose.fields.value.unchecked')}</option>
      </select>
    );
  }
  if (takesOptions(field.field_type)) {
    return (
      <select id={id} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">{t('compose.fields.value.none')}</option>
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  const type = field.field_type === FIELD.DATE ? 'date' : field.field_type === FIELD.NUMBER ? 'number' : 'text';
  return <input id={id} type={type} value={value} onChange={(e) => set(e.target.value)} />;
}

export function PropertiesPanel({
  field,
  parties,
  pages,
  problem,
  showFieldKey,
  emptySignatureFields,
  onChange,
  onRemove,
}: Props) {
  const { t } = useT();
  const id = useId();
  const party = parties.find((p) => p.key === field.party);
  const page = pages[field.page_number - 1] ?? pages[0]!;
  const number = (text: string) => (text.trim() === '' || !Number.isFinite(Number(text)) ? null : Number(text));
  const setBox = (key: 'x' | 'y' | 'width' | 'height', text: string) => {
    const n = number(text);
    if (n === null) return;
    if (key === 'x' || key === 'y') {
      onChange(placeAt(field, key === 'x' ? n : field.x, key === 'y' ? n : field.y, page, false));
    } else {
      onChange(resizeTo(field, key === 'width' ? n : field.width, key === 'height' ? n : field.height, page, false));
    }
  };
  const setPage = (text: string) => {
    const n = number(text);
    if (n === null || !Number.isInteger(n) || n < 1 || n > pages.length) return;
    onChange(placeAt({ ...field, page_number: n }, field.x, field.y, pages[n - 1]!, false));
  };
  const dscSignature = isDscSigner(party) && field.field_type === FIELD.SIGNATURE;

  return (
    <section className="properties" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('compose.fields.properties', { type: t(typeKey(field.field_type)) })}</h3>
      {problem && (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      )}
      <Row id={`${id}-party`} label={t('compose.fields.party')}>
        <select id={`${id}-party`} value={field.party} onChange={(e) => onChange({ ...field, party: e.target.value })}>
          {parties.filter(holdsFields).map((p) => (
            <option key={p.key} value={p.key}>
              {p.label}
            </option>
          ))}
        </select>
      </Row>
      <div className="properties-box">
        <Row id={`${id}-page`} label={t('compose.fields.page')}>
          <input
            id={`${id}-page`}
            type="number"
            min={1}
            max={pages.length}
            value={field.page_number}
            onChange={(e) => setPage(e.target.value)}
          />
        </Row>
        {(['x', 'y', 'width', 'height'] as const).map((key) => (
          <Row key={key} id={`${id}-${key}`} label={t(`compose.fields.${key}`)}>
            <input
              id={`${id}-${key}`}
              type="number"
              step="1"
              value={Math.round(field[key] * 100) / 100}
              onChange={(e) => setBox(key, e.target.value)}
            />
          </Row>
        ))}
      </div>
      <Row id={`${id}-label`} label={t('compose.fields.label')}>
        <input
          id={`${id}-label`}
          value={field.label ?? ''}
          maxLength={500}
          onChange={(e) => onChange(withText(field, 'label', e.target.value))}
        />
      </Row>
      <label className="check">
        <input
          type="checkbox"
          checked={field.required ?? field.field_type !== FIELD.CHECKBOX}
          onChange={(e) => onChange({ ...field, required: e.target.checked })}
        />
        {t('compose.fields.required')}
      </label>
      {takesOptions(field.field_type) && (
        <Row id={`${id}-options`} label={t('compose.fields.options')}>
          <textarea
            id={`${id}-options`}
            rows={4}
            value={(field.options ?? []).join('\n')}
            onChange={(e) =>
              onChange({
                ...field,
                options: e.target.value
                  .split('\n')
                  .map((o) => o.trim())
                  .filter((o, i, all) => o !== '' || i === all.length - 1),
              })
            }
          />
        </Row>
      )}
      {takesValue(field.field_type) && (
        <>
          <Row id={`${id}-value`} label={t('compose.fields.value')}>
            <ValueInput field={field} id={`${id}-value`} onChange={onChange} />
          </Row>
          {field.value !== undefined && (
            <label className="check">
              <input
                type="checkbox"
                checked={field.editable ?? false}
                onChange={(e) => onChange({ ...field, editable: e.target.checked })}
              />
              {t('compose.fields.editable')}
            </label>
          )}
        </>
      )}
      {!takesValue(field.field_type) && <p className="muted small-print">{t('compose.fields.autoFilled')}</p>}
      {showFieldKey && (
        <Row id={`${id}-key`} label={t('compose.fields.fieldKey')}>
          <input
            id={`${id}-key`}
            value={field.field_key ?? ''}
            maxLength={100}
            onChange={(e) => onChange(withText(field, 'field_key', e.target.value))}
          />
        </Row>
      )}
      {dscSignature && (
        <Row id={`${id}-pdfsig`} label={t('compose.fields.pdfSignatureField')}>
          <select
            id={`${id}-pdfsig`}
            value={field.pdf_signature_field ?? ''}
            onChange={(e) => onChange(withText(field, 'pdf_signature_field', e.target.value))}
          >
            <option value="">{t('compose.fields.pdfSignatureField.none')}</option>
            {emptySignatureFields.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          {emptySignatureFields.length === 0 && (
            <p className="muted small-print">{t('compose.fields.pdfSignatureField.empty')}</p>
          )}
        </Row>
      )}
      <button type="button" className="button danger small" onClick={() => onRemove(field.id)}>
        {t('compose.fields.remove')}
      </button>
    </section>
  );
}
