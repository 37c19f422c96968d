/**
 * One field, placed exactly on its rectangle: field coordinates are PDF points from the top-left corner of the
 * page as displayed (CropBox after /Rotate), the same space pdf.js draws the page in, so left = x × scale.
 */
import type { CSSProperties } from 'react';
import type { FieldType } from '../../../common/fields';
import { autoValue, FIELD, isAutoFilled, isPreassignedReadOnly } from '../fields';
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';
import type { AdoptedSignature, FieldValue, SignerField, SignerView } from '../types';
import { CheckboxField } from './CheckboxField';
import { InitialsField } from './InitialsField';
import { RadioField } from './RadioField';
import { ReadOnlyField } from './ReadOnlyField';
import { SelectField } from './SelectField';
import { SignatureField } from './SignatureField';
import { TextField } from './TextField';

export interface FieldOverlayProps {
  field: SignerField;
  owner: 'me' | 'other';
  scale: number;
  recipient: SignerView['recipient'];
  today: string;
  value: FieldValue | undefined;
  onChange: (fieldId: string, value: FieldValue) => void;
  signature: AdoptedSignature | null;
  onOpenSignature: () => void;
  /** The signer's adopted initials, shown in every Initials field of theirs. */
  initials: AdoptedSignature | null;
  onOpenInitials: () => void;
  /** USB DSC signers sign with the token: their Signature field is a placeholder. */
  tokenSignature: boolean;
  flagged: boolean;
}

/** The page's words for a field type (the server sends 1 to 13): the key does not compile while a type has none. */
function typeWords(type: number): StringKey {
  const key: `field.${FieldType}` = `field.${type as FieldType}`;
  return key;
}

export function FieldOverlay(props: FieldOverlayProps) {
  const { t } = useI18n();
  const { field, scale } = props;
  const style: CSSProperties = {
    left: `${field.x * scale}px`,
    top: `${field.y * scale}px`,
    width: `${field.width * scale}px`,
    height: `${field.height * scale}px`,
    fontSize: `${Math.max(10, Math.min(field.height * scale * 0.6, 18))}px`,
  };
  const name = field.label ?? t(typeWords(field.field_type));
  const label =
    (field.required || field.field_type === FIELD.INITIAL) && props.owner === 'me' && !isAutoFilled(field)
      ? `${name} (${t('field.required')})`
      : name;
  const id = `field-${field.field_id}`;
  const common = { id, field, label, invalid: props.flagged };
  const className = `field field-${props.owner} type-${field.field_type}${props.flagged ? ' flagged' : ''}`;
  const data = { 'data-field-id': field.field_id, 'data-field-type': field.field_type };

  let content;
  if (props.owner === 'other') {
    const value = field.field_type === FIELD.CHECKBOX ? (field.value === 'true' ? '☑' : '☐') : (field.value ?? '');
    content = <ReadOnlyField id={id} text={value} description={t('field.other', { label: name, value })} />;
  } else if (field.field_type === FIELD.SIGNATURE) {
    content = props.tokenSignature ? (
      <ReadOnlyField
        id={id}
        wrap
        text={t(props.recipient.signature_method === 'aadhaar' ? 'field.aadhaarSignature' : 'field.tokenSignature')}
        description={t(
          props.recipient.signature_method === 'aadhaar' ? 'field.aadhaarSignature' : 'field.tokenSignature',
        )}
      />
    ) : (
      <SignatureField {...common} signature={props.signature} onOpen={props.onOpenSignature} />
    );
  } else if (field.field_type === FIELD.INITIAL) {
    content = <InitialsField {...common} initials={props.initials} onOpen={props.onOpenInitials} />;
  } else if (isAutoFilled(field)) {
    const value = autoValue(field, props.recipient, props.today);
    content = <ReadOnlyField id={id} text={value} description={t('field.auto', { label: name, value })} />;
  } else if (isPreassignedReadOnly(field)) {
    const value = field.field_type === FIELD.CHECKBOX ? (field.value === 'true' ? '☑' : '☐') : field.value!;
    content = (
      <ReadOnlyField id={id} text={value} description={t('field.preassigned', { label: name, value: field.value! })} />
    );
  } else {
    const change = (value: FieldValue) => props.onChange(field.field_id, value);
    switch (field.field_type) {
      case FIELD.CHECKBOX:
        content = <CheckboxField {...common} checked={props.value === true} onChange={change} />;
        break;
      case FIELD.DROPDOWN:
        content = (
          <SelectField {...common} value={typeof props.value === 'string' ? props.value : ''} onChange={change} />
        );
        break;
      case FIELD.RADIO:
        content = (
          <RadioField {...common} value={typeof props.value === 'string' ? props.value : ''} onChange={change} />
        );
        break;
      default:
        content = (
          <TextField {...common} value={typeof props.value === 'string' ? props.value : ''} onChange={change} />
        );
    }
  }
  return (
    <div className={className} style={style} {...data}>
      {content}
    </div>
  );
}
