/**
 * Form fields and their widgets: the keys a revision may change (a value, an appearance, a signature of the field
 * it signs), a new signature field, and a field's appearance objects rewritten in place (diff-appearance.ts).
 */
import type { PdfDict } from '../../objects.js';
import type { AppearanceOwner } from '../diff-appearance.js';
import type { FieldNode } from '../diff-facts.js';
import { judgeEach, rule } from './rule.js';
import { as, keyChanges, other, signedNow, type DiffScope, type KeyChange, type Verdict } from './scope.js';

/** A key of a field or widget dictionary that changed. */
interface FieldKeyChange extends KeyChange {
  readonly node: FieldNode;
  /** `field "name"`, for reasons. */
  readonly label: string;
  /** The signature this revision adds to the field (signature fields only). */
  readonly signing: Verdict | undefined;
}

const isSignatureField = ({ node }: FieldKeyChange): boolean => node.type === 'Sig';

const FIELD_KEY_RULES = [
  rule<FieldKeyChange>({
    name: 'signature replaced',
    recognise: (c) => isSignatureField(c) && c.key === 'V' && c.before?.has('V') === true,
    judge: ({ node, label }) => [other(`signature ${label}: its signature (/V) was replaced`, node.name)],
  }),
  rule<FieldKeyChange, Verdict>({
    name: 'signature field signed (/V) and its appearance (/AP)',
    recognise: (c) => isSignatureField(c) && (c.key === 'V' || c.key === 'AP') && c.signing,
    judge: ({ key, label }, signing) => [
      as(signing, key === 'V' ? `signature ${label} signed (/V)` : `appearance (/AP) of signature ${label}`),
    ],
  }),
  // The annotation flags of the widget being signed (pyHanko's signer makes it printable): only its own look.
  rule<FieldKeyChange, Verdict>({
    name: 'annotation flags (/F) of the signature widget being signed',
    recognise: (c) => isSignatureField(c) && c.key === 'F' && c.node.widget && c.signing,
    judge: ({ label }, signing) => [as(signing, `annotation flags (/F) of signature ${label}`)],
  }),
  rule<FieldKeyChange>({
    name: 'any other key of a signature field',
    recognise: isSignatureField,
    judge: ({ node, label, key, how, signing }) => [
      other(
        `signature ${label}: /${key} ${how}${signing ? '' : ' (the field is not signed in this revision)'}`,
        node.name,
      ),
    ],
  }),
  rule<FieldKeyChange>({
    name: 'value, state or appearance of a field (form filling)',
    recognise: ({ key, node }) => ['V', 'AP', 'AS'].includes(key) && node.terminal,
    judge: ({ node, label, key }) => [{ class: 'form_filling', reason: `${label} /${key}`, field: node.name }],
  }),
  // A kid widget of a field (a radio button's options, say) carries its own state and appearance.
  rule<FieldKeyChange>({
    name: 'state or appearance of a kid widget (form filling)',
    recognise: ({ key, node }) => ['AP', 'AS'].includes(key) && node.widget && !node.field,
    judge: ({ node, label, key }) => [{ class: 'form_filling', reason: `${label} widget /${key}`, field: node.name }],
  }),
];

/** A field or widget dictionary rewritten: each changed key as the rules judge it; any other key is `other`. */
export function fieldVerdicts(
  scope: DiffScope,
  node: FieldNode,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
): Verdict[] {
  const label = `field "${node.name}"`;
  const signing = node.type === 'Sig' ? signedNow(scope, node.name) : undefined;
  const changes = keyChanges(scope, before, after).map((c) => ({ ...c, node, label, signing }));
  return judgeEach(FIELD_KEY_RULES, changes, ({ key, how }) => [other(`${label}: /${key} ${how}`, node.name)]);
}

/** A new field or widget: only a signature field (or its widget) that this revision signs, without actions. */
export function newFieldVerdict(scope: DiffScope, node: FieldNode, d: PdfDict | undefined): Verdict {
  const what = node.field ? `new form field "${node.name}"` : `new widget of field "${node.name}"`;
  if (node.type !== 'Sig' || (!node.terminal && node.field)) {
    return other(`${what} (/${node.type ?? 'no type'})`, node.name);
  }
  const signing = signedNow(scope, node.name);
  if (!signing) return other(`${what}: a signature field this revision does not sign`, node.name);
  const actions = ['A', 'AA'].filter((k) => d?.has(k));
  if (actions.length > 0) return other(`${what} carries actions (/${actions.join(', /')})`, node.name);
  return as(
    signing,
    node.field ? `new signature field "${node.name}" with its widget` : `new widget of signature field "${node.name}"`,
  );
}

/** A field's indirect /AP dictionary or appearance stream rewritten in place: as a new /AP of that field. */
export function appearanceVerdict(scope: DiffScope, { node, role }: AppearanceOwner, num: number): Verdict {
  const what = `${role === 'dictionary' ? 'appearance dictionary (/AP)' : 'appearance stream'} object ${num}`;
  if (node.type !== 'Sig') {
    return { class: 'form_filling', reason: `field "${node.name}" ${what} rewritten`, field: node.name };
  }
  const signing = signedNow(scope, node.name);
  if (signing) return as(signing, `signature field "${node.name}" ${what} rewritten`);
  return other(
    `signature field "${node.name}" ${what} rewritten (the field is not signed in this revision)`,
    node.name,
  );
}
