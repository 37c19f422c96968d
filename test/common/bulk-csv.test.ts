/**
 * common/bulk-csv.ts: CSV text to bulk send rows with line numbers, header checks against a source format, the sample
 * CSV.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  columnOfPath,
  csvErrorsOfProblem,
  parseCsvText,
  rowsFromCsv,
  rowsFromRecords,
  sampleCsv,
  type BulkCsvFormat,
} from '../../common/bulk-csv.js';

const FORMAT: BulkCsvFormat = {
  recipient_slots: [
    { slot: 1, label: 'Customer', role: 'signer', signature_method: 'electronic', sequence: 1, role_key: null },
    { slot: 2, label: 'Witness', role: 'signer', signature_method: 'electronic', sequence: 2, role_key: null },
  ],
  merge_fields: [
    {
      key: 'Customer',
      aliases: [],
      label: 'Customer',
      type: 'text',
      field_type: 8,
      slot: 1,
      required: true,
      options: null,
    },
    {
      key: 'Amount',
      aliases: [],
      label: 'Amount',
      type: 'number',
      field_type: 10,
      slot: 1,
      required: true,
      options: null,
    },
    {
      key: 'plan',
      aliases: ['Plan'],
      label: 'Plan',
      type: 'dropdown',
      field_type: 12,
      slot: 2,
      required: true,
      options: ['Gold', 'Silver'],
    },
  ],
};

describe('bulk send CSV', () => {
  test('quotes, commas and newlines inside cells, CRLF and a BOM; every column kind; lines of multi-line records', () => {
    const text =
      '\uFEFFexternal_id,title,metadata.branch,recipient_1_name,recipient_1_email,recipient_2_name,recipient_2_email,recipient_2_sequence,field.Customer,field.Plan\r\n' +
      'c-1,"Renewal, 2027",Pune,Asha Rao,asha@example.com,Vikram,v@example.com,,"Rao ""& Sons""",Gold\r\n' +
      '\r\n' +
      'c-2,,,"Line\nbreak",b@example.com,W, w@example.com ,3,,Silver\r\n' +
      'c-3,,,C,c@example.com,D,d@example.com,,x,Gold';
    const result = rowsFromCsv(text, FORMAT);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.lines, [2, 4, 6]);
    assert.deepEqual(result.rows[0], {
      external_id: 'c-1',
      title: 'Renewal, 2027',
      metadata: { branch: 'Pune' },
      recipients: [
        { name: 'Asha Rao', email: 'asha@example.com' },
        { name: 'Vikram', email: 'v@example.com' },
      ],
      field_values: { Customer: 'Rao "& Sons"', Plan: 'Gold' },
    });
    assert.deepEqual(result.rows[1], {
      external_id: 'c-2',
      recipients: [
        { name: 'Line\nbreak', email: 'b@example.com' },
        { name: 'W', email: 'w@example.com', sequence: 3 },
      ],
      field_values: { Plan: 'Silver' },
    });
  });

  test('header problems (unknown column, unknown merge field, missing slot columns, duplicates) and row problems, by line', () => {
    const text =
      'external_id,colour,field.Nope,recipient_1_name,recipient_1_email,recipient_2_name,recipient_1_name\n' +
      'a,red,x,A,a@example.com,B,A\n';
    const header = rowsFromCsv(text, FORMAT).errors.map((e) => [e.line, e.row_index, e.column, e.code]);
    assert.deepEqual(header, [
      [1, null, 'colour', 'unknown_column'],
      [1, null, 'field.Nope', 'unknown_merge_field'],
      [1, null, 'recipient_1_name', 'duplicate_column'],
      [1, null, 'recipient_2_email', 'missing_column'],
      [2, 0, 'recipient_2_email', 'missing_value'],
    ]);
    const rows = rowsFromCsv(
      'recipient_1_name,recipient_1_email,recipient_1_sequence,recipient_2_name,recipient_2_email\nA,a@example.com,first,B,b@example.com\nA,,,B,b@example.com,extra\n',
      FORMAT,
    );
    assert.deepEqual(
      rows.errors.map((e) => [e.line, e.row_index, e.column, e.code]),
      [
        [2, 0, 'recipient_1_sequence', 'invalid_sequence'],
        [3, 1, null, 'too_many_cells'],
        [3, 1, 'recipient_1_email', 'missing_value'],
      ],
    );
    assert.equal(rows.rows.length, 2, 'every record is a row (best effort), its problems listed');
    assert.equal(
      rowsFromCsv(
        'recipient_1_name,recipient_1_email,recipient_2_name,recipient_2_email,recipient_3_name,recipient_3_email\n',
        FORMAT,
      ).errors[0]!.code,
      'unknown_column',
    );
    assert.equal(rowsFromCsv('', FORMAT).errors[0]!.code, 'empty_csv');
    assert.equal(rowsFromCsv('a,"b\n', FORMAT).errors[0]!.code, 'malformed_csv');
  });

  test('without a format the slots come from the header; string[][] records number lines from 1', () => {
    const result = rowsFromRecords([
      ['recipient_1_name', 'recipient_1_email', 'field.Anything'],
      ['A', 'a@example.com', '5'],
    ]);
    assert.deepEqual(result, {
      rows: [{ recipients: [{ name: 'A', email: 'a@example.com' }], field_values: { Anything: '5' } }],
      lines: [2],
      errors: [],
    });
    assert.deepEqual(
      parseCsvText('x\n"a\nb"\nc').records.map((r) => r.line),
      [1, 2, 4],
    );
  });

  test('API invalid_rows items map back to CSV lines and columns', () => {
    assert.equal(columnOfPath('/rows/3/field_values/Amount'), 'field.Amount');
    assert.equal(columnOfPath('/rows/3/recipients/1/email'), 'recipient_2_email');
    assert.equal(columnOfPath('/rows/0/external_id'), 'external_id');
    assert.equal(columnOfPath('/rows/0/recipients'), null);
    const errors = csvErrorsOfProblem(
      [{ index: 1, path: '/rows/1/field_values/Amount', code: 'value_invalid', message: 'not a number' }],
      [2, 5],
    );
    assert.deepEqual(errors, [
      { line: 5, row_index: 1, column: 'field.Amount', code: 'value_invalid', message: 'not a number' },
    ]);
  });

  test('the sample CSV of a format reads back into one valid row', () => {
    const sample = sampleCsv(FORMAT);
    assert.deepEqual(sample.columns, [
      'external_id',
      'title',
      'recipient_1_name',
      'recipient_1_email',
      'recipient_2_name',
      'recipient_2_email',
      'field.Customer',
      'field.Amount',
      'field.plan',
    ]);
    const back = rowsFromCsv(sample.text, FORMAT);
    assert.deepEqual(back.errors, []);
    assert.deepEqual(back.rows[0]!.field_values, { Customer: 'Customer', Amount: '100', plan: 'Gold' });
  });
});
