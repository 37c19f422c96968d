/** Mohar's version, in the OpenAPI documents and backup manifests; apart from app.ts so the CLI loads no HTTP app. */
export const VERSION = '0.1.0';
