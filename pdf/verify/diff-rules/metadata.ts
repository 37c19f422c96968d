/**
 * The `metadata` class (issue 19): what an honest signing tool updates beside its signature, one rule each, as
 * pyHanko's DocInfoRule, MetadataUpdateRule and CatalogModificationRule. What each accepts and refuses is
 * metadata-changes.ts; the lists place these rules (added.ts, rewritten.ts, catalog.ts).
 */
import type { PdfDict } from '../../objects.js';
import { sameObject } from '../diff-util.js';
import {
  catalogMetadataVerdict,
  catalogVersionVerdict,
  metadataObjectKind,
  metadataObjectVerdict,
  type MetadataObjectKind,
} from '../metadata-changes.js';
import { rule } from './rule.js';
import type { AddedObject, KeyChange, RewrittenObject, Verdict } from './scope.js';

export const NEW_METADATA_OBJECT = rule<AddedObject, MetadataObjectKind>({
  name: 'new /Info dictionary or XMP stream the trailer or catalog now names',
  recognise: ({ scope, num }) => metadataObjectKind(scope, num, undefined),
  judge: ({ scope, num, obj }, kind) => [metadataObjectVerdict(scope, kind, num, undefined, obj)],
});

/** What signing tools do (pyHanko's own test files): harmless, where a rewrite of it would be metadata. */
export const METADATA_OBJECT_WRITTEN_AGAIN = rule<RewrittenObject, Verdict>({
  name: '/Info or XMP written again unchanged',
  recognise: ({ scope, num, before, after }) => {
    if (!sameObject(before, after)) return undefined;
    const kind = metadataObjectKind(scope, num, before);
    const verdict = kind && metadataObjectVerdict(scope, kind, num, before, after);
    return verdict?.class === 'metadata' ? verdict : undefined;
  },
  judge: (_, verdict) => [verdict],
});

export const METADATA_OBJECT_REWRITTEN = rule<RewrittenObject, MetadataObjectKind>({
  name: '/Info dictionary or XMP stream rewritten',
  recognise: ({ scope, num, before }) => metadataObjectKind(scope, num, before),
  judge: ({ scope, num, before, after }, kind) => [metadataObjectVerdict(scope, kind, num, before, after)],
});

export const CATALOG_VERSION = rule<KeyChange<PdfDict>>({
  name: 'catalog /Version',
  recognise: ({ key }) => key === 'Version',
  judge: ({ how, after }) => [catalogVersionVerdict(how, after)],
});

export const CATALOG_METADATA = rule<KeyChange<PdfDict>>({
  name: 'catalog /Metadata',
  recognise: ({ key }) => key === 'Metadata',
  judge: ({ scope, how, after }) => [catalogMetadataVerdict(scope, how, after)],
});
