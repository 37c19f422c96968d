/**
 * Builds that tests use, each made once when missing or older than its sources: the renderer's pages
 * (renderer.ts) and the compiled CLI and server (cli.ts). The definitions and the lock that lets one of several
 * parallel test processes build while the others wait are scripts/builds.mjs, which `npm start` runs too.
 */
export { BUILDS, ensureBuilt, ROOT, type Build } from '../../scripts/builds.mjs';
