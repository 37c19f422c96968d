/**
 * Every example in both OpenAPI documents is valid against the schema it illustrates (JSON Schema 2020-12, as
 * OpenAPI 3.1 reads it): schema `examples`, a media type's `example` and `examples`, a parameter's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

type Json = { [key: string]: unknown };

interface ExampleCase {
  readonly where: string;
  readonly schema: Json;
  readonly example: unknown;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A media type or a parameter: `example`, or `examples` as named Example Objects ({ value }). */
function holderExamples(holder: Json, where: string): ExampleCase[] {
  if (!isObject(holder.schema)) return [];
  const schema = holder.schema;
  const cases: ExampleCase[] = [];
  if ('example' in holder) cases.push({ where: `${where}/example`, schema, example: holder.example });
  if (isObject(holder.examples)) {
    for (const [name, example] of Object.entries(holder.examples)) {
      if (isObject(example) && 'value' in example) {
        cases.push({ where: `${where}/examples/${name}`, schema, example: example.value });
      }
    }
  }
  return cases;
}

/** Every example of a document, found by walking it (schemas nest anywhere: properties, items, allOf …). */
function examplesOf(doc: unknown): ExampleCase[] {
  const cases: ExampleCase[] = [];
  // keys: the path from the root, to tell a media type (under `content`) and a property map from a schema.
  const walk = (node: unknown, where: string, keys: readonly string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${where}/${index}`, [...keys, String(index)]));
      return;
    }
    if (!isObject(node)) return;
    const parentKey = keys.at(-1);
    const isMediaType = keys.at(-2) === 'content';
    const isParameter = keys.at(-2) === 'parameters' && 'in' in node;
    const isHolder = isObject(node.schema) && (isMediaType || isParameter);
    if (isHolder) cases.push(...holderExamples(node, where));
    // A schema's own `examples` is an array of instances (JSON Schema); a holder's is a map of Example Objects.
    const isPropertyMap = parentKey === 'properties';
    if (!isHolder && !isPropertyMap && Array.isArray(node.examples)) {
      node.examples.forEach((example, index) =>
        cases.push({ where: `${where}/examples/${index}`, schema: node, example }),
      );
    }
    for (const [key, value] of Object.entries(node)) {
      if (!isPropertyMap && (key === 'example' || key === 'examples')) continue;
      walk(value, `${where}/${key}`, [...keys, key]);
    }
  };
  walk(doc, '#', []);
  return cases;
}

function validator() {
  // strict: false — the schemas carry OpenAPI's own words (example, x-…) beside JSON Schema's.
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);
  return ajv;
}

describe('OpenAPI examples', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(() => server?.close());

  for (const [name, base] of [
    ['envelope API v1', API],
    ['legacy API', LEGACY],
  ] as const) {
    test(`every example of the ${name} document validates against its schema`, async () => {
      const doc = (await server.request('GET', `${base}/openapi.json`)).json() as unknown;
      const cases = examplesOf(doc);
      assert.ok(cases.length >= (name === 'legacy API' ? 0 : 20), `${name}: examples found (${cases.length})`);
      const ajv = validator();
      const failures = cases.flatMap(({ where, schema, example }) => {
        const validate = ajv.compile(schema);
        return validate(example) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
      });
      assert.deepEqual(failures, [], `${name}: examples that do not match their schema`);
    });
  }

  test('a wrong example is caught (the walk finds schema, media type and parameter examples)', () => {
    const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
    const doc = {
      paths: {
        '/x': {
          post: {
            parameters: [{ in: 'query', name: 'n', schema: { type: 'integer' }, example: 'seven' }],
            requestBody: { content: { 'application/json': { schema, examples: { one: { value: {} } } } } },
            responses: { 200: { content: { 'application/json': { schema: { ...schema, examples: [{ id: 1 }] } } } } },
          },
        },
      },
    };
    const cases = examplesOf(doc);
    const ajv = validator();
    const bad = cases.filter(({ schema: s, example }) => !ajv.validate(s, example)).map((c) => c.where);
    assert.deepEqual(bad.sort(), [
      '#/paths//x/post/parameters/0/example',
      '#/paths//x/post/requestBody/content/application/json/examples/one',
      '#/paths//x/post/responses/200/content/application/json/schema/examples/0',
    ]);
  });
});
