/** The operators' views: the mail outbox and the background jobs ({legacy_base}/mail/outbox/, /jobs/). */
export const MAIL_STATUSES = ['queued', 'sent', 'failed', 'kept'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface OutboxMail {
  id: string;
  to: string;
  to_name: string | null;
  subject: string;
  kind: string;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
  envelope_id: string | null;
  /** A test envelope's mail (qsk_test_ key): kept in the outbox, never delivered. */
  test: boolean;
}

/** One mail opened (GET …/mail/outbox/{id}/): the plain text and the links in it. */
export interface OpenedMail extends OutboxMail {
  text: string;
  links: string[];
}

export const JOB_STATES = ['queued', 'running', 'done', 'dead'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface Job {
  id: string;
  kind: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: string;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface Page<T> {
  items: T[];
  next_before: string | null;
}

export const mailTone = (status: MailStatus): string =>
  ({ queued: 'tone-info', sent: 'tone-success', failed: 'tone-danger', kept: 'tone-warning' })[status];
export const jobTone = (state: JobState): string =>
  ({ queued: 'tone-info', running: 'tone-info', done: 'tone-success', dead: 'tone-danger' })[state];
