/** Whose fields you are placing: one radio button per party (recipient or role), each with its colour. */
import { useId } from 'react';
import { useT } from '../i18n';
import type { EditorParty } from './types';

interface Props {
  parties: readonly EditorParty[];
  activeKey: string | undefined;
  colourOf(key: string): string;
  onPick(key: string): void;
}

export function PartyPicker({ parties, activeKey, colourOf, onPick }: Props) {
  const { t } = useT();
  const name = useId();
  if (parties.length === 0) return null;
  return (
    <fieldset className="party-picker">
      <legend>{t('compose.fields.placingFor')}</legend>
      {parties.map((party) => (
        <label
          key={party.key}
          className={`party-option${party.key === activeKey ? ' active' : ''}`}
          style={{ borderColor: colourOf(party.key) }}
        >
          <input
            type="radio"
            name={name}
            value={party.key}
            checked={party.key === activeKey}
            onChange={() => onPick(party.key)}
          />
          <span className="palette-swatch" style={{ backgroundColor: colourOf(party.key) }} aria-hidden="true" />
          {party.label}
          <span className="muted">
            {' '}
            ({t(`compose.role.${party.role}`)}
            {party.role === 'signer' ? `, ${t(`compose.method.${party.signatureMethod}`)}` : ''})
          </span>
        </label>
      ))}
    </fieldset>
  );
}
