#!/usr/bin/env node
// SHA-256 of Mohar Desktop's installers, in the format `sha256sum --check` reads ("<hex>  <name>", sorted by
// name): node scripts/release-checksums.mjs <dir> [--out <file>]. The release workflow
// (.github/workflows/desktop.yml) runs it on every packaging runner and again over all installers for the
// release's SHA256SUMS. Node rather than sha256sum: the Windows and macOS runners name that tool differently.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What electron-builder.yml makes: AppImage and deb (Linux), NSIS .exe (Windows), dmg (macOS). */
const INSTALLER_EXTENSIONS = ['.AppImage', '.deb', '.exe', '.dmg'];

function isInstaller(name) {
  return INSTALLER_EXTENSIONS.some((extension) => name.endsWith(extension));
}

function sha256Of(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** The SHA256SUMS text for the installers directly in `dir`; throws when there is none. */
async function checksums(dir) {
  const names = readdirSync(dir)
    .filter((name) => isInstaller(name) && statSync(join(dir, name)).isFile())
    .sort();
  if (names.length === 0) throw new Error(`no installer (${INSTALLER_EXTENSIONS.join(', ')}) in ${dir}`);
  // sha256sum cannot name a file with a newline in its name without escaping it; installers never need one.
  const odd = names.find((name) => /[\n\r\\]/.test(name));
  if (odd !== undefined) throw new Error(`unexpected character in ${JSON.stringify(odd)}`);
  const lines = [];
  for (const name of names) lines.push(`${await sha256Of(join(dir, name))}  ${name}`);
  return `${lines.join('\n')}\n`;
}

async function main(args) {
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args[outAt + 1] : undefined;
  const dir = args.find((arg, i) => !arg.startsWith('--') && (outAt < 0 || i !== outAt + 1));
  if (!dir || (outAt >= 0 && !out)) {
    process.stderr.write('usage: node scripts/release-checksums.mjs <dir> [--out <file>]\n');
    process.exit(2);
  }
  const text = await checksums(dir);
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
