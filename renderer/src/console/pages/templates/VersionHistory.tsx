/** A template's versions, newest first, each with who made it, when, and what it changed, in words. */
import { useState } from 'react';
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT, type ConsoleTranslate } from '../../i18n';
import { typeKey } from '../../fields/Palette';
import { useResource } from '../../use-resource';
import type { ChangeSummary, FieldRef, TemplateVersion, VersionList } from './model';

/** "Signature (signer_1), Text “price” (buyer)": what each field is, its key when it has one, and its role. */
function fieldNames(refs: readonly FieldRef[], t: ConsoleTranslate): string {
  return refs
    .map((f) => `${t(typeKey(f.field_type))}${f.field_key ? ` “${f.field_key}”` : ''} (${f.role_key})`)
    .join(', ');
}

/** The change summary as short sentences (docs/templates.md, "Changing"). */
export function summaryLines(summary: ChangeSummary, t: ConsoleTranslate): string[] {
  const lines: string[] = [];
  if (summary.created_from) {
    lines.push(
      t(
        summary.created_from === 'envelope'
          ? 'templates.history.fromEnvelope'
          : summary.created_from === 'import'
            ? 'templates.history.fromImport'
            : 'templates.history.fromUpload',
      ),
    );
  }
  if (summary.name_changed) lines.push(t('templates.history.name'));
  if (summary.description_changed) lines.push(t('templates.history.description'));
  if (summary.settings_changed.length) {
    lines.push(t('templates.history.settings', { list: summary.settings_changed.join(', ') }));
  }
  if (summary.roles_added.length) {
    lines.push(t('templates.history.rolesAdded', { list: summary.roles_added.join(', ') }));
  }
  if (summary.roles_removed.length) {
    lines.push(t('templates.history.rolesRemoved', { list: summary.roles_removed.join(', ') }));
  }
  if (summary.roles_changed.length) {
    lines.push(t('templates.history.rolesChanged', { list: summary.roles_changed.join(', ') }));
  }
  const fields = [
    ['templates.history.fieldsAdded', summary.fields_added],
    ['templates.history.fieldsRemoved', summary.fields_removed],
    ['templates.history.fieldsMoved', summary.fields_moved],
    ['templates.history.fieldsChanged', summary.fields_changed],
  ] as const;
  for (const [key, refs] of fields) {
    if (refs.length) lines.push(t(key, { count: refs.length, list: fieldNames(refs, t) }));
  }
  if (summary.documents_added.length) {
    lines.push(t('templates.history.documentsAdded', { count: summary.documents_added.length }));
  }
  if (summary.documents_removed.length) {
    lines.push(t('templates.history.documentsRemoved', { count: summary.documents_removed.length }));
  }
  if (summary.documents_replaced.length) {
    lines.push(t('templates.history.documentsReplaced', { count: summary.documents_replaced.length }));
  }
  if (lines.length === 0) lines.push(t('templates.history.nothing'));
  return lines;
}

function who(version: TemplateVersion, t: ConsoleTranslate): string {
  if (version.created_by.type === 'user') return t('templates.history.byUser');
  if (version.created_by.type === 'admin') return t('templates.history.byAdmin');
  return t('templates.history.byKey');
}

export function VersionHistory({ templateId, latest }: { templateId: string; latest: number }) {
  const { t, formatDate } = useT();
  const [older, setOlder] = useState<TemplateVersion[]>([]);
  const [before, setBefore] = useState<number | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const first = useResource(
    (signal) => api<VersionList>('GET', `/templates/${templateId}/versions?limit=20`, { signal }),
    [templateId, latest],
  );
  const versions = [...(first.data?.versions ?? []), ...older];
  const next = before === undefined ? (first.data?.next_before ?? null) : before;
  const loadOlder = async () => {
    try {
      const page = await api<VersionList>('GET', `/templates/${templateId}/versions?limit=20&before=${next}`);
      setOlder([...older, ...page.versions]);
      setBefore(page.next_before);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">{t('templates.history.title')}</h2>
      <ErrorNotice error={first.error ?? error} onRetry={first.reload} />
      <ol className="version-list">
        {versions.map((version) => (
          <li key={version.version}>
            <h3 className="version-head">
              {t('templates.history.version', { n: version.version })}{' '}
              <span className="muted small">
                {formatDate(version.created_at)} · {who(version, t)}
              </span>
            </h3>
            <ul className="version-changes">
              {summaryLines(version.summary, t).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {next !== null && first.data && (
        <button type="button" className="button small" onClick={() => void loadOlder()}>
          {t('templates.history.older')}
        </button>
      )}
    </section>
  );
}
