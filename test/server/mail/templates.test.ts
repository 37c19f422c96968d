import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  completionMail,
  declinedMail,
  escapeHtml,
  headerText,
  invitationMail,
  reminderMail,
  voidedMail,
  yourTurnMail,
  type MailContent,
} from '../../../server/mail/templates.js';

const EVIL = `<script>alert("x")</script> & 'quotes' <img src=x onerror=alert(1)>`;
const base = { envelopeTitle: `Lease ${EVIL}`, recipientName: `Ann <b>Bold</b>`, senderName: `Acme & Sons <i>` };
const LINK = 'https://sign.example.com/s/abc?token=1&x="y"';

function all(): [string, MailContent][] {
  return [
    [
      'invitation',
      invitationMail({
        ...base,
        signingUrl: LINK,
        message: `Please sign.\n\n${EVIL}\nline two`,
        expiresAt: '2030-01-31T00:00:00.000Z',
      }),
    ],
    ['your_turn', yourTurnMail({ ...base, signingUrl: LINK, action: 'approve', message: EVIL })],
    ['reminder', reminderMail({ ...base, signingUrl: LINK, sentAt: '2030-01-01T10:00:00.000Z' })],
    ['completion', completionMail({ ...base, attachmentNames: [`signed ${EVIL}.pdf`] })],
    ['declined', declinedMail({ ...base, declinedBy: `Bob <u>`, reason: `Wrong ${EVIL}` })],
    ['voided', voidedMail({ ...base, reason: `Cancelled ${EVIL}` })],
  ];
}

describe('mail templates', () => {
  test('escapeHtml covers the five HTML-special characters', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  test('user text is escaped in every HTML part and never becomes markup', () => {
    for (const [name, mail] of all()) {
      assert.ok(!/<script|<img|<b>|<i>|<u>/i.test(mail.html), `${name}: no user markup in the HTML`);
      assert.ok(
        mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;'),
        `${name}: the title is shown escaped`,
      );
      assert.ok(mail.html.includes('Ann &lt;b&gt;Bold&lt;/b&gt;'), `${name}: the recipient name is escaped`);
      assert.match(mail.html, /^<!doctype html>\n<html lang="en">/, `${name}: a language is declared`);
      assert.match(mail.html, /<title>[^<]+<\/title>/, `${name}: a title`);
      assert.ok(mail.text.includes(`Lease ${EVIL}`), `${name}: the plain text keeps the user text as written`);
    }
  });

  test('subjects are one line, name the envelope, and carry no control characters', () => {
    const mail = invitationMail({ ...base, envelopeTitle: 'Line one\r\nBcc: victim@example.com\tx', signingUrl: LINK });
    assert.equal(mail.subject, 'Acme & Sons <i> sent you “Line one Bcc: victim@example.com x” to sign');
    assert.ok(!/[\r\n]/.test(mail.subject));
    assert.equal(headerText('a'.repeat(500)).length, 200);
    const subjects = Object.fromEntries(all().map(([name, m]) => [name, m.subject]));
    assert.match(subjects.invitation!, /sent you “Lease .*” to sign$/);
    assert.match(subjects.your_turn!, /^Your turn to approve “Lease/);
    assert.match(subjects.reminder!, /^Reminder: “Lease/);
    assert.match(subjects.completion!, /^Completed: “Lease/);
    assert.match(subjects.declined!, /^Declined: “Lease/);
    assert.match(subjects.voided!, /^Voided: “Lease/);
  });

  test('signing mails carry the link in text and (escaped) in HTML; other schemes are refused', () => {
    for (const [name, mail] of all().slice(0, 3)) {
      assert.ok(mail.text.includes(new URL(LINK).toString()), `${name}: text link`);
      assert.ok(
        mail.html.includes('href="https://sign.example.com/s/abc?token=1&amp;x=%22y%22"'),
        `${name}: escaped href`,
      );
    }
    assert.throws(() => invitationMail({ ...base, signingUrl: 'javascript:alert(1)' }), /http/);
    assert.throws(() => reminderMail({ ...base, signingUrl: 'not a url' }), /not a URL/);
  });

  test('invitation: the message keeps its paragraphs and the expiry date is spelled out', () => {
    const mail = all()[0]![1];
    assert.ok(mail.text.includes('Message from Acme & Sons <i>:\n\nPlease sign.'));
    assert.ok(mail.html.includes('<p>Please sign.</p>'));
    assert.ok(mail.html.includes('onerror=alert(1)&gt;<br>line two</p>'), 'single newlines become <br> after escaping');
    assert.ok(mail.text.includes('31 January 2030 (UTC)'));
  });

  test('completion names the attachments; declined and voided give the reason', () => {
    const byName = Object.fromEntries(all());
    assert.ok(byName.completion!.text.includes(`The signed document is attached:\n- signed ${EVIL}.pdf`));
    assert.ok(byName.declined!.text.includes(`Bob <u> declined`));
    assert.ok(byName.declined!.text.includes(`Reason given:\n\nWrong ${EVIL}`));
    assert.ok(byName.voided!.text.includes(`Cancelled ${EVIL}`));
    assert.ok(declinedMail({ ...base, declinedBy: 'Bob', reason: '  ' }).text.includes('No reason was given.'));
    assert.ok(!voidedMail({ ...base, reason: null }).text.includes('Reason given'));
  });
});
