/** `mohar tokens`: PKCS#11 modules found, their tokens, and certificates that have a key. */
import { findModules, openModules } from '../native/index.js';
import type { Config } from '../server/config.js';

export async function tokensCommand(config: Config, options: { module?: string[] }): Promise<void> {
  const explicit = options.module ?? [];
  const candidates =
    explicit.length > 0
      ? explicit
      : findModules({ platform: process.platform, extraPaths: [...config.pkcs11Modules] }).map((c) => c.path);
  if (candidates.length === 0) {
    process.stdout.write(
      "No PKCS#11 module found. Install your token vendor's driver, or name it with --module PATH (or MOHAR_PKCS11_MODULES).\n",
    );
    return;
  }
  const { modules, failures } = await openModules(candidates);
  for (const failure of failures) {
    process.stdout.write(`Module ${failure.path}: could not be loaded: ${failure.error.message}\n`);
  }
  try {
    for (const module of modules) {
      const tokens = (await module.listTokens()).filter((t) => t.initialized);
      process.stdout.write(`Module ${module.path}: ${tokens.length} token(s)\n`);
      for (const token of tokens) {
        const flags = Object.entries(token.flags)
          .filter(([, on]) => on)
          .map(([name]) => name);
        process.stdout.write(
          `  Token "${token.label}" (${token.manufacturer} ${token.model}, serial ${token.serial})${flags.length ? ` [${flags.join(', ')}]` : ''}\n`,
        );
        const certificates = (await module.listCertificates({ serial: token.serial })).filter(
          (c) => c.privateKey !== null,
        );
        if (certificates.length === 0) process.stdout.write('    no certificate with a private key\n');
        for (const cert of certificates) {
          process.stdout.write(
            `    Certificate id ${cert.certId ?? '(none)'}: ${cert.subjectCommonName ?? cert.subject}${cert.email ? ` <${cert.email}>` : ''}\n`,
          );
          process.stdout.write(
            `      issuer ${cert.issuerCommonName ?? cert.issuer}; valid ${cert.notBefore.toISOString().slice(0, 10)} to ${cert.notAfter.toISOString().slice(0, 10)}; ${cert.keyType}${cert.rsaBits ? `-${cert.rsaBits}` : ` ${cert.curve ?? ''}`}\n`,
          );
          const usage = cert.keyUsage?.join(', ') ?? 'any';
          process.stdout.write(
            `      key usage ${usage}${cert.ccaClass ? `; ${cert.ccaClass.name}` : ''}; SHA-256 ${cert.fingerprintSha256}\n`,
          );
        }
      }
    }
  } finally {
    await Promise.all(modules.map((m) => m.close()));
  }
}
