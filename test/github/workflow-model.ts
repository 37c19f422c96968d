/**
 * The shape of .github/workflows/desktop.yml as the workflow tests read it, and the secrets rule: secrets only as
 * `secrets.NAME` (or `secrets.NAME != ''`), only into a step env of the packaging job, in full only in the
 * packaging step itself. A function, so the test can show that it also catches violations.
 */

export const SIGNING_SECRETS = [
  'CSC_LINK',
  'CSC_KEY_PASSWORD',
  'APPLE_ID',
  'APPLE_APP_SPECIFIC_PASSWORD',
  'APPLE_TEAM_ID',
];

export interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
export interface Job {
  readonly 'runs-on': string;
  readonly if?: string;
  readonly needs?: string[];
  readonly permissions?: Record<string, string>;
  readonly strategy?: { matrix: { include: { os: string; label: string }[] } };
  readonly steps: Step[];
}
export interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

/** Every string in the workflow with where it is, e.g. ['jobs', 'package', 'steps', 5, 'env', 'X']. */
function strings(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => strings(item, [...path, key]));
  }
  return [];
}

export type MutableStep = { -readonly [K in keyof Step]: Step[K] } & { env?: Record<string, string> };
export interface MutableWorkflow {
  jobs: Record<'package' | 'smoke' | 'release', { if?: string; steps: MutableStep[] }>;
}

/** Where the workflow uses secrets other than as `secrets.NAME` (or `!= ''`) in a step env of the packaging job. */
export function secretProblems(subject: Workflow): string[] {
  const problems: string[] = [];
  const steps = subject.jobs.package?.steps ?? [];
  const distIndex = steps.findIndex((step) => /npm run desktop:dist/.test(step.run ?? ''));
  const seen = new Set<string>();
  for (const { path, text } of strings(subject)) {
    const where = path.join('.');
    for (const [, expression] of text.matchAll(/\$\{\{(.*?)\}\}/gs)) {
      if (!/\bsecrets\b/.test(expression!)) continue;
      const match = /^\s*secrets\.([A-Z][A-Z0-9_]*)( != '')?\s*$/.exec(expression!);
      if (!match) {
        problems.push(`${where}: ${expression!.trim()} (only secrets.NAME or secrets.NAME != '')`);
        continue;
      }
      const [, name, test] = match;
      if (!SIGNING_SECRETS.includes(name!)) problems.push(`${where}: unexpected secret ${name}`);
      if (path[0] !== 'jobs' || path[1] !== 'package' || path[2] !== 'steps' || path[4] !== 'env') {
        problems.push(`${where}: ${name} outside a packaging step's env`);
      } else if (test === undefined && path[3] !== distIndex) {
        // The full value only where it is used; elsewhere only whether it is set.
        problems.push(`${where}: the secret itself, outside the packaging step`);
      }
      seen.add(name!);
    }
    if (/\bsecrets\s*[.[]/.test(text.replace(/\$\{\{.*?\}\}/gs, ''))) {
      problems.push(`${where}: secrets outside an expression`);
    }
  }
  for (const name of SIGNING_SECRETS) if (!seen.has(name)) problems.push(`${name} is never used`);
  return problems;
}
