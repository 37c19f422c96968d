/**
 * common/events.ts and common/audit-actions.ts: the one home of each vocabulary. The webhook event types are
 * published (OpenAPI `webhooks`, receivers switch on them), so their list is spelled out here: a rename or a
 * dropped type fails this test, not a receiver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCOUNT_AUDIT_ACTIONS, ENVELOPE_AUDIT_ACTIONS } from '../../common/audit-actions.js';
import { WEBHOOK_EVENT_TYPES } from '../../common/events.js';

test('the webhook event types stay as published, in the order of the OpenAPI webhooks', () => {
  assert.deepEqual(WEBHOOK_EVENT_TYPES, [
    'envelope.created',
    'envelope.sent',
    'recipient.viewed',
    'recipient.signed',
    'recipient.approved',
    'recipient.reviewed',
    'recipient.declined',
    'envelope.completed',
    'envelope.declined',
    'envelope.voided',
    'envelope.expired',
    'envelope.purged',
    'template.created',
    'template.updated',
    'template.archived',
    'template.restored',
    'bulk_send.completed',
    'bulk_send.failed',
    'webhook.test',
  ]);
});

test('no audit action is listed twice (the envelope trail lists the envelope events and its own actions)', () => {
  assert.equal(new Set(ENVELOPE_AUDIT_ACTIONS).size, ENVELOPE_AUDIT_ACTIONS.length);
  assert.equal(new Set(ACCOUNT_AUDIT_ACTIONS).size, ACCOUNT_AUDIT_ACTIONS.length);
});
