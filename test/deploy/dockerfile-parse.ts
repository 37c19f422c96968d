/**
 * A reader of the repository's Dockerfile, for the test that runs its commands outside Docker. It understands
 * the subset the Dockerfile uses (stages, ARG defaults in FROM, WORKDIR, ENV, COPY with --from, RUN, exec-form
 * ENTRYPOINT/CMD/HEALTHCHECK) and throws on anything else, so a new kind of instruction is noticed, not skipped.
 */

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Copy {
  readonly from: string | undefined;
  readonly sources: readonly string[];
  readonly destination: string;
}

export interface Stage {
  readonly name: string;
  readonly image: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  /** COPY and RUN in file order: what a build does, step by step. */
  readonly steps: readonly ({ kind: 'copy'; copy: Copy } | { kind: 'run'; command: string })[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly healthcheck: readonly string[] | undefined;
  readonly user: string | undefined;
  readonly volumes: readonly string[];
  readonly expose: readonly string[];
  readonly stopSignal: string | undefined;
}

const KNOWN = new Set([
  'ARG',
  'FROM',
  'RUN',
  'WORKDIR',
  'ENV',
  'COPY',
  'USER',
  'VOLUME',
  'EXPOSE',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'ENTRYPOINT',
  'CMD',
]);

/** Logical instructions: comment lines dropped (also inside a continuation, as Docker does), `\` lines joined. */
export function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending: { parts: string[]; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#') || (trimmed === '' && !pending)) return;
    const continued = trimmed.endsWith('\\');
    const part = continued ? trimmed.slice(0, -1).trim() : trimmed;
    if (pending) pending.parts.push(part);
    else pending = { parts: [part], line: index + 1 };
    if (continued) return;
    const joined = pending.parts.filter((p) => p !== '').join(' ');
    const match = /^(\S+)\s*(.*)$/s.exec(joined);
    if (!match) throw new Error(`line ${pending.line}: cannot read "${joined}"`);
    const keyword = match[1]!.toUpperCase();
    if (!KNOWN.has(keyword)) {
      throw new Error(`line ${pending.line}: instruction ${keyword} is not understood by this test`);
    }
    result.push({ keyword, args: match[2]!, line: pending.line });
    pending = undefined;
  });
  if (pending) throw new Error(`line ${pending.line}: the file ends inside a continued line`);
  return result;
}

function execForm(args: string, line: number): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) {
    throw new Error(`line ${line}: expected the exec form (a JSON array of strings), got ${args}`);
  }
  return parsed;
}

/** `KEY=value KEY2="quoted value"` pairs of ENV (the legacy `ENV KEY value` form is refused). */
function envPairs(args: string, line: number): [string, string][] {
  const pairs: [string, string][] = [];
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = pattern.exec(args)) !== null) {
    const value = match[2]!.startsWith('"') ? (JSON.parse(match[2]!) as string) : match[2]!;
    pairs.push([match[1]!, value]);
    end = pattern.lastIndex;
  }
  if (args.slice(end).trim() !== '') throw new Error(`line ${line}: cannot read ENV ${args}`);
  return pairs;
}

function copyOf(args: string, line: number): Copy {
  const words = args.split(/\s+/).filter(Boolean);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else if (!flag.startsWith('--chown=') && !flag.startsWith('--chmod=')) {
      throw new Error(`line ${line}: COPY flag ${flag} is not understood by this test`);
    }
  }
  if (words.length < 2) throw new Error(`line ${line}: COPY needs a source and a destination`);
  return { from, sources: words.slice(0, -1), destination: words.at(-1)! };
}

export function parseDockerfile(text: string): Stage[] {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  type Mutable = { -readonly [K in keyof Stage]: Stage[K] } & {
    env: Record<string, string>;
    steps: Stage['steps'][number][];
    volumes: string[];
    expose: string[];
  };
  let current: Mutable | undefined;
  const expand = (value: string): string =>
    value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => {
      const name = (a ?? b)!;
      const found = current?.env[name] ?? args.get(name);
      if (found === undefined) throw new Error(`\${${name}} has no value`);
      return found;
    });
  for (const { keyword, args: rest, line } of instructions(text)) {
    if (keyword === 'ARG') {
      const [name, value] = rest.split('=', 2);
      if (value === undefined) throw new Error(`line ${line}: ARG ${name} needs a default for this test`);
      args.set(name!.trim(), value.trim());
      continue;
    }
    if (keyword === 'FROM') {
      const match = /^(\S+)\s+AS\s+(\S+)$/i.exec(rest);
      if (!match) throw new Error(`line ${line}: every stage must be named (FROM image AS name)`);
      current = {
        name: match[2]!,
        image: expand(match[1]!),
        workdir: '/',
        env: {},
        steps: [],
        entrypoint: [],
        cmd: [],
        healthcheck: undefined,
        user: undefined,
        volumes: [],
        expose: [],
        stopSignal: undefined,
      };
      stages.push(current);
      continue;
    }
    if (!current) throw new Error(`line ${line}: ${keyword} before the first FROM`);
    switch (keyword) {
      case 'WORKDIR':
        current.workdir = rest.startsWith('/') ? rest : `${current.workdir.replace(/\/$/, '')}/${rest}`;
        break;
      case 'ENV':
        for (const [name, value] of envPairs(rest, line)) current.env[name] = expand(value);
        break;
      case 'COPY':
        current.steps.push({ kind: 'copy', copy: copyOf(rest, line) });
        break;
      case 'RUN':
        current.steps.push({ kind: 'run', command: rest });
        break;
      case 'USER':
        current.user = rest.trim();
        break;
      case 'VOLUME':
        current.volumes.push(...(rest.startsWith('[') ? execForm(rest, line) : rest.split(/\s+/)));
        break;
      case 'EXPOSE':
        current.expose.push(...rest.split(/\s+/));
        break;
      case 'STOPSIGNAL':
        current.stopSignal = rest.trim();
        break;
      case 'ENTRYPOINT':
        current.entrypoint = execForm(rest, line);
        break;
      case 'CMD':
        current.cmd = execForm(rest, line);
        break;
      case 'HEALTHCHECK': {
        const match = /\bCMD\s+(\[.*\])\s*$/s.exec(rest);
        if (!match) throw new Error(`line ${line}: HEALTHCHECK must use CMD in the exec form`);
        current.healthcheck = execForm(match[1]!, line);
        break;
      }
    }
  }
  return stages;
}
