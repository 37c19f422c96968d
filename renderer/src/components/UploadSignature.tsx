/** Uploading a picture of a signature (PNG or JPEG up to 5 MB); it is redrawn as PNG and previewed. */
import { useId, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { MAX_UPLOAD_BYTES, uploadedSignature } from '../signature/image';
import type { AdoptedSignature } from '../types';

export function UploadSignature({
  value,
  onValue,
}: {
  value: AdoptedSignature | null;
  onValue: (value: AdoptedSignature | null) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="upload-signature">
      <label htmlFor={id}>{t('sig.uploadLabel')}</label>
      <input
        id={id}
        type="file"
        accept="image/png,image/jpeg"
        onChange={async (e) => {
          const file = e.target.files?.[0];
          setError(null);
          onValue(null);
          if (!file) return;
          if (file.size > MAX_UPLOAD_BYTES) return setError(t('sig.uploadTooBig'));
          const signature = await uploadedSignature(file);
          if (!signature) return setError(t('sig.uploadBad'));
          onValue(signature);
        }}
      />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {value && <img className="upload-preview" src={value.dataUrl} alt={t('sig.title')} />}
    </div>
  );
}
