/** Choose PDFs with the file picker or drop them on the zone; the chosen files are listed and removable. */
import { useId, useState, type DragEvent } from 'react';
import { useT } from '../../i18n';

export function PdfDropZone({ files, onChange }: { files: File[]; onChange(files: File[]): void }) {
  const { t } = useT();
  const id = useId();
  const [over, setOver] = useState(false);
  const add = (list: FileList | null) => {
    const pdfs = Array.from(list ?? []).filter(
      (f) => f.type === 'application/pdf' || f.name.toLowerCase().endsWith('.pdf'),
    );
    if (pdfs.length) onChange([...files, ...pdfs]);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    add(event.dataTransfer.files);
  };
  return (
    <div className="form-field">
      <label htmlFor={id}>{t('templates.new.pdfs')}</label>
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>{t('templates.new.drop')}</p>
        <input
          id={id}
          type="file"
          accept="application/pdf,.pdf"
          multiple
          onChange={(e) => {
            add(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      {files.length > 0 && (
        <ul className="file-list">
          {files.map((file, i) => (
            <li key={`${file.name}-${i}`}>
              {file.name} <span className="muted small">({Math.ceil(file.size / 1024)} KB)</span>{' '}
              <button type="button" className="button small" onClick={() => onChange(files.filter((_, j) => j !== i))}>
                {t('templates.new.removeFile', { name: file.name })}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
