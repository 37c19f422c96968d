/**
 * What changed between two versions, for the version history and the template.updated event. Fields are
 * matched by field_key when they have one, else by document position, role and type and their order
 * among fields of that role and type ("the buyer's second Text field on document 1").
 */
import { canonicalJson } from '../../audit/index.js';
import type { TemplateDefinition, TemplateField } from './model.js';

export interface FieldRef {
  document: number;
  role_key: string;
  field_type: number;
  field_key: string | null;
}

export interface ChangeSummary {
  /** How version 1 came about: upload, envelope, import. Absent on later versions. */
  created_from?: string;
  name_changed: boolean;
  description_changed: boolean;
  settings_changed: string[];
  roles_added: string[];
  roles_removed: string[];
  roles_changed: string[];
  fields_added: FieldRef[];
  fields_removed: FieldRef[];
  fields_moved: FieldRef[];
  fields_changed: FieldRef[];
  documents_added: string[];
  documents_removed: string[];
  documents_replaced: { position: number; from_sha256: string; to_sha256: string }[];
}

function emptySummary(): ChangeSummary {
  return {
    name_changed: false,
    description_changed: false,
    settings_changed: [],
    roles_added: [],
    roles_removed: [],
    roles_changed: [],
    fields_added: [],
    fields_removed: [],
    fields_moved: [],
    fields_changed: [],
    documents_added: [],
    documents_removed: [],
    documents_replaced: [],
  };
}

export function creationSummary(definition: TemplateDefinition, from: string): ChangeSummary {
  return {
    ...emptySummary(),
    created_from: from,
    roles_added: definition.roles.map((r) => r.role_key),
    documents_added: definition.documents.map((d) => d.sha256),
    fields_added: definition.documents.flatMap((d, i) => d.fields.map((f) => ref(i, f))),
  };
}

// Canonical JSON, so a metadata object with its keys in another order is not a change.
const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

function ref(document: number, f: TemplateField): FieldRef {
  return { document, role_key: f.role_key, field_type: f.field_type, field_key: f.field_key };
}

function keyed(fields: readonly TemplateField[], document: number): Map<string, TemplateField> {
  const counts = new Map<string, number>();
  const out = new Map<string, TemplateField>();
  for (const f of fields) {
    if (f.field_key !== null) {
      out.set(`key:${f.field_key}`, f);
      continue;
    }
    const group = `${document}/${f.role_key}/${f.field_type}`;
    const n = (counts.get(group) ?? 0) + 1;
    counts.set(group, n);
    out.set(`pos:${group}/${n}`, f);
  }
  return out;
}

const PLACEMENT = ['page_number', 'x', 'y', 'width', 'height', 'pdf_signature_field'] as const;
const CONTENT = ['label', 'value', 'options', 'required', 'editable', 'role_key', 'field_type'] as const;

export function summarize(before: TemplateDefinition, after: TemplateDefinition): ChangeSummary {
  const s = emptySummary();
  s.name_changed = before.name !== after.name;
  s.description_changed = before.description !== after.description;
  // Both sides' members: an optional setting (reminders, retention_days) may be removed, not only changed.
  const members = new Set([...Object.keys(before.settings), ...Object.keys(after.settings)]);
  s.settings_changed = ([...members] as (keyof typeof after.settings)[]).filter(
    (k) => !same(before.settings[k], after.settings[k]),
  );
  const oldRoles = new Map(before.roles.map((r) => [r.role_key, r]));
  const newRoles = new Map(after.roles.map((r) => [r.role_key, r]));
  s.roles_added = after.roles.filter((r) => !oldRoles.has(r.role_key)).map((r) => r.role_key);
  s.roles_removed = before.roles.filter((r) => !newRoles.has(r.role_key)).map((r) => r.role_key);
  s.roles_changed = after.roles
    .filter((r) => oldRoles.has(r.role_key) && !same(oldRoles.get(r.role_key), r))
    .map((r) => r.role_key);

  const count = Math.max(before.documents.length, after.documents.length);
  for (let i = 0; i < count; i++) {
    const a = before.documents[i];
    const b = after.documents[i];
    if (a && !b) s.documents_removed.push(a.sha256);
    else if (!a && b) s.documents_added.push(b.sha256);
    else if (a && b && a.sha256 !== b.sha256) {
      s.documents_replaced.push({ position: i, from_sha256: a.sha256, to_sha256: b.sha256 });
    }
  }
  const oldFields = new Map(
    before.documents.flatMap((d, i) => [...keyed(d.fields, i)].map(([k, f]) => [k, { f, i }] as const)),
  );
  const newFields = new Map(
    after.documents.flatMap((d, i) => [...keyed(d.fields, i)].map(([k, f]) => [k, { f, i }] as const)),
  );
  for (const [k, { f, i }] of newFields) {
    const old = oldFields.get(k);
    if (!old) s.fields_added.push(ref(i, f));
    else {
      if (old.i !== i || PLACEMENT.some((p) => !same(old.f[p], f[p]))) s.fields_moved.push(ref(i, f));
      if (CONTENT.some((p) => !same(old.f[p], f[p]))) s.fields_changed.push(ref(i, f));
    }
  }
  for (const [k, { f, i }] of oldFields) if (!newFields.has(k)) s.fields_removed.push(ref(i, f));
  return s;
}

/** True when nothing in the definition differs (a PATCH that changes nothing makes no version). */
export function unchanged(before: TemplateDefinition, after: TemplateDefinition): boolean {
  return same(before, after);
}
