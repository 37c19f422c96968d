/**
 * A small filesystem that a test can fill: a tmpfs mounted on a fresh directory (this needs root, as in CI and
 * the dev container; elsewhere mountSmallDisk says why it cannot and the test skips), a filler file that takes
 * every free byte, and, for PostgreSQL, a tablespace on it so that the database's own files run out of space.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, mkdtemp, open, rm, rmdir, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface SmallDisk {
  readonly path: string;
  /** Writes a filler file until the disk is full (ENOSPC); returns the bytes it took. */
  fill(): Promise<number>;
  /** Deletes the filler file: the space is free again. */
  free(): Promise<void>;
  freeBytes(): Promise<number>;
  unmount(): Promise<void>;
}

/** A tmpfs of `sizeMiB` on a fresh directory, or the reason why none can be mounted here. */
export async function mountSmallDisk(sizeMiB: number): Promise<SmallDisk | { unavailable: string }> {
  const path = await mkdtemp(join(tmpdir(), 'mohar-small-disk-'));
  try {
    // mode=755: the PostgreSQL server (its own user) must reach the tablespace directory inside.
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=755`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    await rmdir(path).catch(() => undefined);
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { unavailable: `cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${stderr || String(error)}` };
  }
  const filler = join(path, 'filler');
  return {
    path,
    async fill() {
      const handle = await open(filler, 'a');
      let written = 0;
      try {
        // Big chunks first, then single pages, so that not even 4 KiB stays free.
        for (const size of [1 << 20, 4096]) {
          const chunk = Buffer.alloc(size, 0x5a);
          for (;;) {
            try {
              written += (await handle.write(chunk)).bytesWritten;
            } catch (error) {
              if ((error as { code?: string }).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        await handle.close();
      }
      return written;
    },
    free: () => rm(filler, { force: true }),
    async freeBytes() {
      const info = await statfs(path);
      return info.bavail * info.bsize;
    },
    async unmount() {
      execFileSync('umount', [path], { stdio: 'pipe' });
      await rmdir(path);
    },
  };
}

/**
 * A PostgreSQL tablespace in a directory of the disk, holding every table and index of the database at
 * `databaseUrl` (moved there with ALTER … ALL IN TABLESPACE). Needs a local server and a superuser, as the test
 * setup has; otherwise it says why not. drop() must come after the database is dropped.
 */
export async function moveDatabaseOnto(
  disk: SmallDisk,
  databaseUrl: string,
): Promise<{ drop(): Promise<void> } | { unavailable: string }> {
  const name = `mohar_small_${randomBytes(4).toString('hex')}`;
  const directory = join(disk.path, name);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await mkdir(directory);
    const postgresUser = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const postgresGroup = execFileSync('id', ['-g', 'postgres']).toString().trim();
    await chown(directory, Number(postgresUser), Number(postgresGroup));
    await client.query(`CREATE TABLESPACE ${name} LOCATION '${directory}'`);
  } catch (error) {
    await client.end();
    return { unavailable: `cannot put a PostgreSQL tablespace on the small disk (a local server is needed): ${error}` };
  }
  try {
    await client.query(`ALTER TABLE ALL IN TABLESPACE pg_default SET TABLESPACE ${name}`);
    await client.query(`ALTER INDEX ALL IN TABLESPACE pg_default SET TABLESPACE ${name}`);
  } finally {
    await client.end();
  }
  return {
    async drop() {
      const adminUrl = new URL(databaseUrl);
      adminUrl.pathname = '/postgres';
      const admin = new pg.Client({ connectionString: adminUrl.toString() });
      await admin.connect();
      try {
        await admin.query(`DROP TABLESPACE IF EXISTS ${name}`);
      } finally {
        await admin.end();
      }
    },
  };
}
