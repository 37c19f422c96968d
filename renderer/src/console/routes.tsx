/**
 * The console's pages by path (below /app). Most specific first: "/envelopes/new" before "/envelopes/:id".
 * Every page gets its path parameters as `params`.
 */
import type { ComponentType } from 'react';
import { BulkSendDetailPage } from './pages/bulk/BulkSendDetailPage';
import { BulkSendsPage } from './pages/bulk/BulkSendsPage';
import { NewBulkSendPage } from './pages/bulk/NewBulkSendPage';
import { ComposePage } from './pages/compose/ComposePage';
import { EnvelopeDetailPage } from './pages/envelopes/EnvelopeDetailPage';
import { EnvelopesPage } from './pages/envelopes/EnvelopesPage';
import { TemplateDetailPage } from './pages/templates/TemplateDetailPage';
import { TemplateEditPage } from './pages/templates/TemplateEditPage';
import { TemplateNewPage } from './pages/templates/TemplateNewPage';
import { TemplatesPage } from './pages/templates/TemplatesPage';
import { UseTemplatePage } from './pages/templates/UseTemplatePage';
import { ApiKeysPage } from './pages/developer/ApiKeysPage';
import { EmbeddingPage } from './pages/developer/EmbeddingPage';
import { UsagePage } from './pages/developer/UsagePage';
import { WebhooksPage } from './pages/developer/WebhooksPage';
import { JobsPage } from './pages/operators/JobsPage';
import { MailServerPage } from './pages/operators/MailServerPage';
import { OutboxPage } from './pages/operators/OutboxPage';
import { RetentionPage } from './pages/operators/RetentionPage';
import { AuditLogPage } from './pages/users/AuditLogPage';
import { ChangePasswordPage } from './pages/users/ChangePasswordPage';
import { UsersPage } from './pages/users/UsersPage';

export interface PageProps {
  params: Record<string, string>;
}

export const ROUTES: readonly { pattern: string; page: ComponentType<PageProps> }[] = [
  { pattern: '/envelopes', page: EnvelopesPage },
  { pattern: '/envelopes/new', page: ComposePage },
  { pattern: '/envelopes/:id/edit', page: ComposePage },
  { pattern: '/envelopes/:id', page: EnvelopeDetailPage },
  { pattern: '/templates', page: TemplatesPage },
  { pattern: '/templates/new', page: TemplateNewPage },
  { pattern: '/templates/:id/edit', page: TemplateEditPage },
  { pattern: '/templates/:id/use', page: UseTemplatePage },
  { pattern: '/templates/:id', page: TemplateDetailPage },
  { pattern: '/bulk-sends', page: BulkSendsPage },
  { pattern: '/bulk-sends/new', page: NewBulkSendPage },
  { pattern: '/bulk-sends/:id', page: BulkSendDetailPage },
  { pattern: '/developer', page: ApiKeysPage },
  { pattern: '/developer/webhooks', page: WebhooksPage },
  { pattern: '/developer/embedding', page: EmbeddingPage },
  { pattern: '/developer/usage', page: UsagePage },
  { pattern: '/operators', page: OutboxPage },
  { pattern: '/operators/jobs', page: JobsPage },
  { pattern: '/operators/mail', page: MailServerPage },
  { pattern: '/operators/retention', page: RetentionPage },
  { pattern: '/users', page: UsersPage },
  { pattern: '/users/audit-log', page: AuditLogPage },
  { pattern: '/account/password', page: ChangePasswordPage },
];
