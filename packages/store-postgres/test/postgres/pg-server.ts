// A real PostgreSQL server for the test run, started from the machine's own binaries (Debian's
// postgresql package): a private data and socket directory, loopback only, a free port, fsync off.
// initdb refuses to run as root, so as root the server runs as the `postgres` user.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the server's maintenance database. */
  url: string;
  stop(): void;
}

/** The directory holding initdb and pg_ctl, or null when PostgreSQL is not installed here. */
export function findPostgresBinaries(): string | null {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = [fromConfig.status === 0 ? fromConfig.stdout.trim() : ''];
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a)))
      candidates.push(path.join(debian, version, 'bin'));
  return candidates.find((dir) => dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) ?? null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startPostgres(binaries: string): Promise<PostgresServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'nexus-pg-'));
  const data = path.join(root, 'data');
  const sockets = path.join(root, 'sockets');
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const file = path.join(binaries, command);
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' });
    else execFileSync(file, args, { stdio: 'pipe' });
  };
  execFileSync('mkdir', ['-p', data, sockets]);
  if (asRoot) {
    const owner = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const group = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chmodSync(root, 0o755);
    for (const dir of [root, data, sockets]) chownSync(dir, owner, group);
  }
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const options = [
    `-p ${port}`,
    `-k ${sockets}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(data, 'server.log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
