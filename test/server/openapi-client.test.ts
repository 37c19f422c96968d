/**
 * Issue 27, "Checked by tools": types generated from the served v1 document (openapi-typescript) type-check a
 * small openapi-fetch client (openapi-client/flow.ts) under strict settings, and the same client then runs the
 * whole envelope flow against a test server and downloads a real signed PDF.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { makePdf } from '../support/pdf-fixtures.js';
import { API, startTestServer, type TestServer } from '../support/server.js';
import { pdfsigVerdicts } from '../support/validators.js';

const here = join(import.meta.dirname, 'openapi-client');

/** flow.ts as this suite sees it (its own types come from the generated file, in the temp project). */
interface FlowModule {
  runEnvelopeFlow(
    client: ReturnType<typeof createClient>,
    pdf: Uint8Array<ArrayBuffer>,
    afterSigning: () => Promise<void>,
  ): Promise<{ envelopeId: string; signedPdf: Uint8Array }>;
}
const BLOB = ts.factory.createTypeReferenceNode('Blob');
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull());

describe('a client generated from the v1 document (SQLite)', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startTestServer('sqlite');
    dir = await mkdtemp(join(tmpdir(), 'mohar-openapi-client-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('generated types type-check the flow client strictly, without casts', async () => {
    const served = await server.app.inject({ method: 'GET', url: `${API}/openapi.json` });
    assert.equal(served.statusCode, 200);
    // openapi-typescript's own recipe for file parts: format binary is a Blob, not a string.
    const ast = await openapiTS(served.body, {
      transform: (schema) =>
        schema.format === 'binary'
          ? schema.nullable
            ? ts.factory.createUnionTypeNode([BLOB, NULL])
            : BLOB
          : undefined,
    });
    await writeFile(join(dir, 'v1.generated.ts'), astToString(ast));
    await copyFile(join(here, 'flow.ts'), join(dir, 'flow.ts'));
    const flow = await readFile(join(here, 'flow.ts'), 'utf8');
    assert.doesNotMatch(flow, /\bas\s+(any|unknown)\b|:\s*any\b/, 'no casts to any in the client');
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [],
          baseUrl: '.',
          paths: { 'openapi-fetch': [join(process.cwd(), 'node_modules/openapi-fetch')] },
        },
        files: ['flow.ts', 'v1.generated.ts'],
      }),
    );
    const tsc = join(process.cwd(), 'node_modules/.bin/tsc');
    const result = await promisify(execFile)(tsc, ['-p', dir]).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }),
    );
    assert.ok(result.ok, result.output);
  });

  test('the same client runs the flow against the server: the downloaded PDF is signed', async () => {
    const base = await server.app.listen({ port: 0, host: '127.0.0.1' });
    // flow.ts is compiled against the generated types only (the first test): run the copy next to them.
    const flow: FlowModule = await import(pathToFileURL(join(dir, 'flow.ts')).href);
    const client = createClient({
      baseUrl: `${base}${API}`,
      headers: { 'x-api-key': (await server.newAccount()).key },
    });
    const { runEnvelopeFlow } = flow;
    const result = await runEnvelopeFlow(client, new Uint8Array(makePdf({ pages: 1 })), async () => {
      await server.runJobs();
    });
    const pdf = Buffer.from(result.signedPdf);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match(pdf.toString('latin1'), /\/ByteRange\s*\[/);
    const verdicts = pdfsigVerdicts(pdf);
    assert.ok(verdicts.valid.length >= 1 && verdicts.valid.every(Boolean), verdicts.output);
  });
});
