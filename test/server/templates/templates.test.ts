/** Templates through the real API on both databases: create, versions, If-Match, pinning, archive, listing, errors. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyAuditChain } from '../../../server/audit/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate, instantiate, jsonPart, multipart, PEOPLE } from '../../support/templates.js';

for (const kind of DATABASES) {
  describe(`templates on ${kind}`, () => {
    const t = useTestServer(kind);
    const get = (path: string, key = t.account.key) => t.server.request('GET', `${API}${path}`, { key });
    const patch = (id: string, json: unknown, headers: Record<string, string> = {}) =>
      t.server.request('PATCH', `${API}/templates/${id}`, { key: t.account.key, json, headers });

    test('create from an upload: version 1, the portable format, ETag, the document content-addressed', async () => {
      const created = await createSaleTemplate(t.server, t.account.key);
      const body = created.body;
      assert.equal(body.format, 'mohar.template/v1');
      assert.equal(body.version, 1);
      assert.deepEqual(
        (body.roles as { role_key: string; sequence: number }[]).map((r) => [r.role_key, r.sequence]),
        [
          ['seller', 1],
          ['buyer', 2],
          ['witness', 3],
        ],
      );
      assert.equal(body.documents.length, 1);
      assert.equal(body.documents[0]!.fields.length, 3);
      const read = await get(`/templates/${created.id}`);
      assert.equal(read.statusCode, 200);
      assert.equal(read.headers.etag, '"1"');
      assert.deepEqual(read.json(), body);
      const withDocs = await get(`/templates/${created.id}?include=documents`);
      assert.deepEqual(Buffer.from(withDocs.json().documents[0].content_base64, 'base64'), created.pdf);
      const stored = await get(`/documents/${body.documents[0]!.document_id}/content`);
      assert.deepEqual(stored.rawPayload, created.pdf, 'the PDF is a workspace document, byte for byte');
    });

    test('create with an Idempotency-Key: a repeat replays the same template, another body is a conflict', async () => {
      const pdf = makePdf({ pages: 1 });
      const create = (name: string) =>
        multipart(
          t.server,
          'POST',
          `${API}/templates`,
          t.account.key,
          [
            jsonPart('template', {
              name,
              roles: [{ role_key: 'signer' }],
              documents: [
                {
                  file: 'doc',
                  fields: [
                    { role_key: 'signer', field_type: 1, page_number: 1, x: 72, y: 600, width: 180, height: 50 },
                  ],
                },
              ],
            }),
            { field: 'doc', filename: 'doc.pdf', bytes: pdf },
          ],
          { 'idempotency-key': `create-${kind}` },
        );
      const first = await create('Keyed');
      assert.equal(first.statusCode, 201, first.body);
      const again = await create('Keyed');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().template_id, first.json().template_id);
      assert.equal((await get(`/templates?q=Keyed`)).json().templates.length, 1, 'one template');
      const other = await create('Other name');
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_conflict');

      const draft = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      const fromEnvelope = () =>
        t.server.request('POST', `${API}/templates`, {
          key: t.account.key,
          json: { source_envelope_id: draft.id, name: 'Keyed copy' },
          headers: { 'idempotency-key': `copy-${kind}` },
        });
      const copy = await fromEnvelope();
      assert.equal(copy.statusCode, 201, copy.body);
      assert.equal((await fromEnvelope()).json().template_id, copy.json().template_id);
    });

    test('create from an envelope: recipients become roles, fields follow, the envelope is unchanged', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'A', email: 'a@example.com' },
          { name: 'R', email: 'r@example.com', role: 'approver' },
        ],
      });
      const before = (await get(`/envelopes/${draft.id}`)).json();
      const response = await t.server.request('POST', `${API}/templates`, {
        key: t.account.key,
        json: { source_envelope_id: draft.id, name: 'From envelope' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const template = response.json();
      assert.deepEqual(
        template.roles.map((r: { role_key: string; role: string }) => [r.role_key, r.role]),
        [
          ['signer_1', 'signer'],
          ['approver_1', 'approver'],
        ],
      );
      assert.equal(template.documents[0].document_id, draft.documentId);
      assert.equal(template.documents[0].fields[0].role_key, 'signer_1');
      assert.deepEqual((await get(`/envelopes/${draft.id}`)).json(), before);
      const versions = (await get(`/templates/${template.template_id}/versions`)).json();
      assert.equal(versions.versions[0].summary.created_from, 'envelope');

      // A sent envelope too: the template takes the PDF as uploaded, not the prepared revision.
      await sendDraft(t.server, t.account.key, draft);
      const fromSent = await t.server.request('POST', `${API}/templates`, {
        key: t.account.key,
        json: { source_envelope_id: draft.id },
      });
      assert.equal(fromSent.statusCode, 201, fromSent.body);
      assert.equal(fromSent.json().name, 'Agreement', 'the envelope title by default');
      assert.equal(fromSent.json().documents[0].sha256, template.documents[0].sha256);
      assert.equal((await get(`/envelopes/${draft.id}`)).json().status, 'sent');
    });

    test('PATCH makes versions 2 and 3 with summaries; a no-op makes none; If-Match conflict is 412; old versions stay readable', async () => {
      const { id, body } = await createSaleTemplate(t.server, t.account.key);
      const v2 = await patch(
        id,
        {
          settings: { expire_in_days: 30 },
          roles: [...(body.roles as object[]), { role_key: 'agent', role: 'approver' }],
        },
        { 'if-match': '"1"' },
      );
      assert.equal(v2.statusCode, 200, v2.body);
      assert.equal(v2.json().version, 2);
      assert.equal(v2.headers.etag, '"2"');
      const fields = body.documents[0]!.fields as Record<string, unknown>[];
      const moved = [
        { ...fields[0], x: 80 },
        fields[1],
        { role_key: 'agent', field_type: 8, page_number: 1, x: 50, y: 50, width: 100, height: 20 },
      ];
      const v3 = await patch(
        id,
        { documents: [{ document_id: body.documents[0]!.document_id, fields: moved }] },
        { 'if-match': '"2"' },
      );
      assert.equal(v3.statusCode, 200, v3.body);
      assert.equal(v3.json().version, 3);

      const noop = await patch(id, { settings: { expire_in_days: 30 } });
      assert.equal(noop.json().version, 3, 'nothing changed: no version 4');
      assert.equal(noop.headers['template-version-created'], 'false');
      const stale = await patch(id, { name: 'Lost update' }, { 'if-match': '"2"' });
      assert.equal(stale.statusCode, 412, stale.body);
      assert.equal(stale.json().code, 'precondition_failed');
      assert.equal(stale.json().latest_version, 3);

      const history = (await get(`/templates/${id}/versions`)).json().versions;
      assert.deepEqual(
        history.map((v: { version: number }) => v.version),
        [3, 2, 1],
      );
      const [s3, s2] = [history[0].summary, history[1].summary];
      assert.deepEqual(s2.settings_changed, ['expire_in_days']);
      assert.deepEqual(s2.roles_added, ['agent']);
      assert.deepEqual(s2.fields_added, []);
      assert.deepEqual(s3.roles_added, []);
      assert.deepEqual(
        s3.fields_moved.map((f: { role_key: string }) => f.role_key),
        ['seller'],
      );
      assert.deepEqual(
        s3.fields_added.map((f: { role_key: string }) => f.role_key),
        ['agent'],
      );
      assert.deepEqual(
        s3.fields_removed.map((f: { field_key: string }) => f.field_key),
        ['price'],
      );
      assert.equal(history[0].created_by.type, 'api_key');
      const old = (await get(`/templates/${id}/versions/1`)).json();
      assert.equal(old.template.version, 1);
      assert.equal(old.template.documents[0].fields.length, 3);
      assert.equal((await get(`/templates/${id}/versions/9`)).json().code, 'template_version_not_found');

      const events = await t.server.ctx.db
        .selectFrom('events')
        .select('payload')
        .where('account_id', '=', t.account.accountId)
        .where('type', '=', 'template.updated')
        .execute();
      const updates = events.map((e) => JSON.parse(e.payload)).filter((e) => e.data.template.id === id);
      assert.deepEqual(
        updates.map((e) => [e.data.template.version, e.sequence]),
        [
          [2, 2],
          [3, 3],
        ],
        'one template.updated per version, none for the no-op',
      );
      assert.deepEqual(
        updates[1].data.changes.fields_added.map((f: { role_key: string }) => f.role_key),
        ['agent'],
      );
    });

    test('GET, edit, PATCH back (application/merge-patch+json): read-only members unchanged are accepted, changed ones refused', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const current = (await get(`/templates/${id}`)).json();
      const merge = (json: unknown) =>
        t.server.request('PATCH', `${API}/templates/${id}`, {
          key: t.account.key,
          json,
          headers: { 'content-type': 'application/merge-patch+json' },
        });
      const roundTrip = await merge({
        ...current,
        description: 'Edited',
        settings: { ...current.settings, metadata: { team: 'legal' } },
      });
      assert.equal(roundTrip.statusCode, 200, roundTrip.body);
      assert.equal(roundTrip.json().version, 2);
      assert.equal(roundTrip.json().description, 'Edited');
      assert.deepEqual((await get(`/templates/${id}/versions/2`)).json().summary.settings_changed, ['metadata']);
      const removed = await merge({ settings: { metadata: null, expire_in_days: null } });
      assert.equal(removed.json().settings.metadata, null);
      assert.equal(removed.json().settings.expire_in_days, null);
      const readOnly = await merge({ version: 7, archived: true });
      assert.equal(readOnly.statusCode, 422);
      assert.deepEqual(
        readOnly.json().errors.map((e: { path: string }) => e.path),
        ['/version', '/archived'],
      );
      const openapi = (await t.server.request('GET', `${API}/openapi.json`)).json();
      for (const path of [
        '/templates',
        '/templates/{id}',
        '/templates/{id}/versions',
        '/templates/{id}/versions/{version}',
        '/templates/{id}/restore',
        '/templates/{id}/instantiate',
      ]) {
        assert.ok(openapi.paths[path], path);
      }
      assert.ok(
        openapi.paths['/templates/{id}/instantiate'].post.requestBody.content['application/json'].example.recipients,
        'instantiate has an example',
      );
      assert.equal(
        openapi.paths['/templates/{id}'].get.responses['200'].content['application/json'].example.format,
        'mohar.template/v1',
      );
      // Every template call has an example of each body it takes and of its answer.
      const hasExample = (media: { example?: unknown; examples?: unknown }) =>
        media.example !== undefined || media.examples !== undefined;
      for (const [path, operations] of Object.entries<
        Record<
          string,
          {
            requestBody?: { content: Record<string, object> };
            responses: Record<string, { content?: Record<string, object> }>;
          }
        >
      >(openapi.paths)) {
        if (!path.startsWith('/templates')) continue;
        for (const [method, operation] of Object.entries(operations)) {
          for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
            assert.ok(hasExample(media), `${method} ${path} ${type} request example`);
          }
          const ok = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
          assert.equal(ok.length, 1, `${method} ${path}`);
          for (const [type, media] of Object.entries(ok[0]![1].content ?? {})) {
            assert.ok(hasExample(media), `${method} ${path} ${type} answer example`);
          }
        }
      }
      assert.equal(
        openapi.paths['/templates/{id}/instantiate'].post.responses['201'].content['application/json'].example
          .template_version,
        2,
      );
    });

    test('versions cannot be changed in place: the database refuses UPDATE and DELETE', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const db = t.server.ctx.db;
      await assert.rejects(
        db.updateTable('template_versions').set({ definition: '{}' }).where('template_id', '=', id).execute(),
        /append-only/,
      );
      await assert.rejects(db.deleteFrom('template_versions').where('template_id', '=', id).execute(), /append-only/);
      await assert.rejects(db.deleteFrom('template_audit').where('template_id', '=', id).execute(), /append-only/);
    });

    test("invalid layouts are 422 invalid_field_layout like the fields endpoint, by path, with role_key in recipient_id's place", async () => {
      const { id, body } = await createSaleTemplate(t.server, t.account.key);
      const bad = await patch(id, {
        documents: [
          {
            document_id: body.documents[0]!.document_id,
            fields: [
              { role_key: 'ghost', field_type: 8, page_number: 1, x: 1, y: 1, width: 10, height: 10 },
              { role_key: 'seller', field_type: 1, page_number: 3, x: 1, y: 1, width: 10, height: 10 },
              { role_key: 'witness', field_type: 8, page_number: 1, x: 1, y: 1, width: 10, height: 10 },
            ],
          },
        ],
      });
      assert.equal(bad.statusCode, 422, bad.body);
      const problem = bad.json();
      assert.equal(problem.code, 'invalid_field_layout');
      assert.deepEqual(
        problem.errors.map((e: { path: string; code: string }) => [e.path, e.code]),
        [
          ['/documents/0/fields/0', 'unknown_role'],
          ['/documents/0/fields/1', 'page_out_of_range'],
          ['/documents/0/fields/2', 'role_mismatch'],
        ],
      );
      assert.equal((await get(`/templates/${id}`)).json().version, 1, 'a refused PATCH makes no version');
      // The USB DSC rules apply too: one DSC signer per envelope, exactly one Signature field for it.
      const twoDsc = await patch(id, {
        roles: [
          { role_key: 'seller', signature_method: 'dsc' },
          { role_key: 'buyer', signature_method: 'dsc' },
          { role_key: 'witness', role: 'cc' },
        ],
      });
      assert.equal(twoDsc.statusCode, 422, twoDsc.body);
      assert.equal(twoDsc.json().code, 'dsc_single_signer');
      const fields = body.documents[0]!.fields as Record<string, unknown>[];
      const noSignature = await patch(id, {
        roles: [
          { role_key: 'seller', signature_method: 'dsc' },
          { role_key: 'buyer' },
          { role_key: 'witness', role: 'cc' },
        ],
        documents: [{ document_id: body.documents[0]!.document_id, fields: [fields[1], fields[2]] }],
      });
      assert.equal(noSignature.statusCode, 422, noSignature.body);
      assert.deepEqual(
        noSignature.json().errors.map((e: { code: string }) => e.code),
        ['dsc_signature_field_count'],
      );
      assert.equal(
        (
          await patch(id, {
            roles: [
              { role_key: 'seller', signature_method: 'dsc' },
              { role_key: 'buyer' },
              { role_key: 'witness', role: 'cc' },
            ],
          })
        ).statusCode,
        200,
        'one DSC signer with one Signature field is fine',
      );
    });

    test('instantiate: pinned to the version; keeps version 2 fields after version 3; field_values; role mapping errors; key required', async () => {
      const { id, body } = await createSaleTemplate(t.server, t.account.key);
      const noKey = await t.server.request('POST', `${API}/templates/${id}/instantiate`, {
        key: t.account.key,
        json: { recipients: PEOPLE },
      });
      assert.equal(noKey.statusCode, 400);
      assert.equal(noKey.json().code, 'idempotency_key_required');

      const v2 = await patch(id, { settings: { message: 'Version two' } });
      assert.equal(v2.json().version, 2);
      const env2 = await instantiate(t.server, t.account.key, id, {
        recipients: PEOPLE,
        field_values: { price: '8500000' },
      });
      assert.equal(env2.statusCode, 201, env2.body);
      const fields = body.documents[0]!.fields as Record<string, unknown>[];
      const v3 = await patch(id, {
        documents: [{ document_id: body.documents[0]!.document_id, fields: [{ ...fields[0], x: 200 }, fields[1]] }],
      });
      assert.equal(v3.json().version, 3);

      const envelope = (await get(`/envelopes/${env2.json().id}`)).json();
      assert.deepEqual(env2.json(), envelope, 'the answer is the envelope as GET shows it');
      assert.equal(envelope.template_id, id);
      assert.equal(envelope.template_version, 2);
      assert.equal(envelope.message, 'Version two');
      assert.equal(envelope.status, 'draft');
      assert.deepEqual(
        envelope.recipients.map((r: { email: string; role: string }) => [r.email, r.role]),
        [
          ['asha@example.com', 'signer'],
          ['vikram@example.com', 'signer'],
          ['kiran@example.com', 'cc'],
        ],
      );
      const placed = envelope.documents[0].fields;
      assert.equal(placed.length, 3, 'version 2 had three fields');
      assert.equal(placed[0].x, 72, 'version 2 placement, not version 3');
      assert.equal(placed.find((f: { field_type: number }) => f.field_type === 10).value, '8500000');

      const env3 = (await instantiate(t.server, t.account.key, id, { recipients: PEOPLE })).json();
      assert.equal(env3.template_version, 3);
      assert.equal(env3.documents[0].fields.length, 2);
      const overrides = {
        title: 'Explicit',
        message: 'Overridden',
        expire_in_days: 3,
        redirect_url: 'https://example.com/done',
        metadata: { deal: 42 },
      };
      const pinned = (
        await instantiate(t.server, t.account.key, id, { version: 1, recipients: PEOPLE, ...overrides })
      ).json();
      assert.equal(pinned.template_version, 1);
      assert.deepEqual(
        [pinned.title, pinned.message, pinned.expire_in_days, pinned.redirect_url, pinned.metadata],
        Object.values(overrides),
        'the call overrides the settings',
      );
      assert.equal(env3.expire_in_days, 14, "otherwise the version's settings");

      const mapping = await instantiate(t.server, t.account.key, id, {
        recipients: { seller: PEOPLE.seller, tenant: PEOPLE.buyer },
      });
      assert.equal(mapping.statusCode, 422);
      assert.equal(mapping.json().code, 'invalid_role_mapping');
      assert.deepEqual(
        mapping.json().errors.map((e: { code: string; path: string }) => [e.code, e.path]),
        [
          ['unknown_role', '/recipients/tenant'],
          ['unmapped_role', '/recipients/buyer'],
          ['unmapped_role', '/recipients/witness'],
        ],
      );
      const badValue = await instantiate(t.server, t.account.key, id, {
        version: 2,
        recipients: PEOPLE,
        field_values: { price: 'lots' },
      });
      assert.equal(badValue.statusCode, 422);
      assert.equal(badValue.json().code, 'invalid_field_layout');
      assert.equal(badValue.json().errors[0].code, 'value_invalid');
      const unknownKey = await instantiate(t.server, t.account.key, id, {
        version: 2,
        recipients: PEOPLE,
        field_values: { cost: '1' },
      });
      assert.equal(unknownKey.json().code, 'invalid_field_values');

      const first = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE, external_id: `ext-${kind}` });
      assert.equal(first.statusCode, 201);
      const clash = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE, external_id: `ext-${kind}` });
      assert.equal(clash.statusCode, 409);
      assert.equal(clash.json().code, 'external_id_conflict');
      const replay = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE }, 'same-key');
      const again = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE }, 'same-key');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().id, replay.json().id);
      const conflict = await instantiate(
        t.server,
        t.account.key,
        id,
        { recipients: PEOPLE, title: 'Other' },
        'same-key',
      );
      assert.equal(conflict.json().code, 'idempotency_conflict');

      const audit = (await get(`/envelopes/${env2.json().id}/audit-trail`)).json();
      assert.equal(audit.chain.ok, true);
      const created = audit.events.find((e: { action: string }) => e.action === 'envelope.created');
      assert.equal(created.details.template_id, id);
      assert.equal(created.details.template_version, 2);
    });

    test('instantiate with send: true sends at once', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const sent = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE, send: true });
      assert.equal(sent.statusCode, 201, sent.body);
      assert.equal(sent.json().status, 'sent');
      assert.equal(sent.json().template_version, 1);
      const event = await t.server.ctx.db
        .selectFrom('events')
        .select('payload')
        .where('envelope_id', '=', sent.json().id)
        .where('type', '=', 'envelope.sent')
        .executeTakeFirstOrThrow();
      const envelope = JSON.parse(event.payload).data.envelope;
      assert.equal(envelope.template_id, id, 'envelope events say which template version the envelope is pinned to');
      assert.equal(envelope.template_version, 1);
    });

    test('archive blocks instantiate and PATCH; restore brings it back; events and the template audit chain', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key, 'Archivable');
      const archived = await t.server.request('DELETE', `${API}/templates/${id}`, { key: t.account.key });
      assert.equal(archived.statusCode, 200);
      assert.equal(archived.json().archived, true);
      const blocked = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE });
      assert.equal(blocked.statusCode, 409);
      assert.equal(blocked.json().code, 'template_archived');
      assert.equal((await patch(id, { name: 'x' })).json().code, 'template_archived');
      assert.equal((await get(`/templates/${id}`)).json().archived, true, 'still readable');
      const restored = await t.server.request('POST', `${API}/templates/${id}/restore`, { key: t.account.key });
      assert.equal(restored.json().archived, false);
      assert.equal((await instantiate(t.server, t.account.key, id, { recipients: PEOPLE })).statusCode, 201);

      const events = await t.server.ctx.db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('account_id', '=', t.account.accountId)
        .where('envelope_id', 'is', null)
        .execute();
      const mine = events.map((e) => JSON.parse(e.payload)).filter((e) => e.data.template?.id === id);
      assert.deepEqual(
        mine.map((e) => e.type),
        ['template.created', 'template.archived', 'template.restored'],
      );
      const rows = await t.server.ctx.db
        .selectFrom('template_audit')
        .selectAll()
        .where('template_id', '=', id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.action),
        ['template.created', 'template.archived', 'template.restored'],
      );
      const report = verifyAuditChain(
        rows.map(({ template_id, ...r }) => ({ ...r, envelope_id: template_id, seq: Number(r.seq) })),
      );
      assert.equal(report.ok, true, JSON.stringify(report));
    });

    test('list: newest first, cursor paging, ?archived, ?q', async () => {
      const other = await t.server.newAccount();
      const names = ['Lease alpha', 'Lease beta', 'NDA gamma', 'Lease_100%'];
      const ids: string[] = [];
      for (const name of names) {
        ids.push((await createSaleTemplate(t.server, other.key, name)).id);
        t.server.clock.advance(1);
      }
      await t.server.request('DELETE', `${API}/templates/${ids[1]}`, { key: other.key });
      const page1 = (await get('/templates?limit=2', other.key)).json();
      assert.deepEqual(
        page1.templates.map((x: { name: string }) => x.name),
        ['Lease_100%', 'NDA gamma'],
      );
      const page2 = (await get(`/templates?limit=2&cursor=${page1.next_cursor}`, other.key)).json();
      assert.deepEqual(
        page2.templates.map((x: { name: string }) => x.name),
        ['Lease alpha'],
      );
      assert.equal(page2.next_cursor, null);
      assert.deepEqual(
        (await get('/templates?archived=true', other.key)).json().templates.map((x: { name: string }) => x.name),
        ['Lease beta'],
      );
      assert.equal((await get('/templates?archived=all', other.key)).json().templates.length, 4);
      assert.deepEqual(
        (await get('/templates?q=lease&archived=all', other.key)).json().templates.map((x: { name: string }) => x.name),
        ['Lease_100%', 'Lease beta', 'Lease alpha'],
      );
      assert.deepEqual(
        (await get(`/templates?q=${encodeURIComponent('_1')}`, other.key))
          .json()
          .templates.map((x: { name: string }) => x.name),
        ['Lease_100%'],
        '_ is literal',
      );
    });

    test('multipart PATCH replaces a document: a version with documents_replaced', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const replacement = makePdf({ pages: 3 });
      const response = await multipart(t.server, 'PATCH', `${API}/templates/${id}`, t.account.key, [
        jsonPart('template', {
          documents: [
            {
              file: 'v2',
              fields: [{ role_key: 'seller', field_type: 1, page_number: 3, x: 72, y: 600, width: 180, height: 50 }],
            },
          ],
        }),
        { field: 'v2', filename: 'sale-v2.pdf', bytes: replacement },
      ]);
      assert.equal(response.statusCode, 200, response.body);
      const latest = response.json();
      assert.equal(latest.version, 2);
      assert.equal(latest.documents[0].page_count, 3);
      const summary = (await get(`/templates/${id}/versions/2`)).json().summary;
      assert.equal(summary.documents_replaced.length, 1);
    });
  });
}
