/**
 * What instantiation needs of a template version, worked out once per version and kept in memory:
 * versions and document rows never change (template_versions is append-only, documents are
 * content-addressed), so neither does their field layout. The layout was checked by the fields
 * endpoint's rules when the version was stored (validate.ts); it is placed here once more, on first use,
 * to get each field's row (a field named by pdf_signature_field takes the PDF widget's rectangle). An
 * instantiation then only fills in the ids and checks the values its caller gives (valueProblems).
 */
import type { Kysely } from 'kysely';
import type { ErrorItem } from '../../../common/errors.js';
import type { Database, FieldsTable } from '../../storage/schema.js';
import { documentView, storedInfo, type DocumentRow, type DocumentView } from '../documents/documents.js';
import { validateFieldLayout } from '../envelopes/field-layout.js';
import { fieldColumns } from '../envelopes/field-columns.js';
import type { TemplateDefinition } from './model.js';
import { loadVersion } from './store.js';
import { layoutError, layoutInput, layoutRecipients } from './layout-input.js';

/** A field row without the ids an instantiation gives it. */
export type FieldTemplate = Omit<FieldsTable, 'id' | 'envelope_id' | 'document_id' | 'recipient_id'>;

export interface PlannedField {
  /** Index in definition.roles: the recipient at the same place gets the field. */
  readonly roleIndex: number;
  readonly fieldKey: string | null;
  /** Where the field is in the template, for error paths: /documents/{documentIndex}/fields/{fieldIndex}. */
  readonly documentIndex: number;
  readonly fieldIndex: number;
  readonly documentId: string;
  readonly row: FieldTemplate;
  /** The choices of a Dropdown or Radio field, for checking a value given at instantiation. */
  readonly options: string[] | null;
}

export interface Instantiable {
  readonly definition: TemplateDefinition;
  readonly documents: readonly DocumentRow[];
  /** The documents as the envelope JSON shows them (without fields). */
  readonly documentViews: readonly DocumentView[];
  readonly fields: readonly PlannedField[];
  /** The field_keys of the version. */
  readonly fieldKeys: ReadonlySet<string>;
}

const CACHE_SIZE = 500;
const cache = new Map<string, Instantiable>();

export async function loadInstantiable(
  db: Kysely<Database>,
  accountId: string,
  templateId: string,
  version: number,
): Promise<Instantiable> {
  const key = `${templateId}:${version}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { definition } = await loadVersion(db, templateId, version);
  const ids = definition.documents.map((d) => d.document_id);
  const rows =
    ids.length === 0
      ? []
      : await db
          .selectFrom('documents')
          .select(['id', 'filename', 'sha256', 'size', 'page_count', 'info', 'created_at'])
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute();
  const documents = ids.map((id) => rows.find((r) => r.id === id)!);
  const loaded: Instantiable = {
    definition,
    documents,
    documentViews: documents.map(documentView),
    fields: planFields(definition, documents),
    fieldKeys: new Set(
      definition.documents.flatMap((d) => d.fields.flatMap((f) => (f.field_key === null ? [] : [f.field_key]))),
    ),
  };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, loaded);
  return loaded;
}

function planFields(definition: TemplateDefinition, documents: readonly DocumentRow[]): PlannedField[] {
  const roleIndex = new Map(definition.roles.map((r, i) => [r.role_key, i]));
  const recipients = layoutRecipients(definition.roles);
  const planned: PlannedField[] = [];
  const errors: ErrorItem[] = [];
  definition.documents.forEach((d, documentIndex) => {
    const result = validateFieldLayout(d.fields.map(layoutInput), recipients, storedInfo(documents[documentIndex]!));
    if (!result.ok) {
      errors.push(...result.errors.map((e) => ({ ...e, path: `/documents/${documentIndex}${e.path ?? ''}` })));
      return;
    }
    result.fields.forEach((f, position) =>
      planned.push({
        roleIndex: roleIndex.get(f.recipient_id)!,
        fieldKey: d.fields[position]!.field_key,
        documentIndex,
        fieldIndex: position,
        documentId: d.document_id,
        options: f.options,
        // The columns of the fields endpoint's rows (checkedFieldRows), in its order.
        row: fieldColumns(f, position),
      }),
    );
  });
  // A stored version passed these rules when it was made; a rule made stricter since is reported as before.
  if (errors.length > 0) throw layoutError(errors);
  return planned;
}
